package command

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"vibing/internal/twingen"
)

// twinLines are the Bash lines the shortcuts of the walk are held to their
// slow twins on: every line of the corpora the other packages decide (the
// session's cases, the matcher's bypass classes, the default rules' rows)
// and lines drawn by twingen over its paths.
func twinLines(t *testing.T) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	add := func(l string) {
		if l != "" && !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	unescape := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\\`, `\`)
	jsonCmd := regexp.MustCompile(`"command": *("(?:[^"\\]|\\.)*")`)
	files, err := filepath.Glob("../session/testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no session corpus (%v)", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range jsonCmd.FindAllSubmatch(b, -1) {
			var s string
			if json.Unmarshal(m[1], &s) == nil {
				add(s)
			}
		}
	}
	tsv, _ := filepath.Glob("../matcher/testdata/classes/*.txt")
	tsv = append(tsv, "../matcher/testdata/bypass.txt", "../defaults/testdata/defaults.txt")
	for _, f := range tsv {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fs := strings.Split(sc.Text(), "\t")
			switch {
			case len(fs) >= 5 && fs[3] == "Bash": // bypass rows: the fifth field
				add(unescape.Replace(fs[4]))
			case len(fs) == 3 && (fs[0] == "deny" || fs[0] == "allow"): // default rules' rows
				add(unescape.Replace(fs[2]))
			}
		}
		fh.Close()
	}
	rng := rand.New(rand.NewPCG(612, 26))
	w, err := twingen.NewWorld(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < twingen.Draws(testing.Short()); i++ {
		add(twingen.Line(rng, twingen.Path(rng, w)))
	}
	if len(out) < 1000 {
		t.Fatalf("only %d lines in the twin corpus", len(out))
	}
	return out
}

// readOnlyTables is the slow twin of readOnlyBy: the tables looked up
// each, as readOnly read them before the program table held their bits.
func (cmd *Command) readOnlyTables() bool {
	name, ro, decided := cmd.readOnlyFixed()
	if decided {
		return ro
	}
	if !readers.Get()[name] {
		return false
	}
	return !writesBy(name, cmd.Args[1:], writeFlags.Get()[name], writeOperand[name])
}

// TestReadOnlyByTwin holds what Prepare records of each command (ReadOnly,
// read through the walk's look-ups of the program table) to the tables
// looked up each; the program table's bits to the tables they gather.
func TestReadOnlyByTwin(t *testing.T) {
	for name, ok := range readers.Get() {
		if got := progs.Get()[name]&progReader != 0; got != ok {
			t.Errorf("readers[%q] = %v, progReader bit %v", name, ok, got)
		}
	}
	for name, flags := range writeFlags.Get() {
		if got := progs.Get()[name]&progWriteFlags != 0; got != (len(flags) > 0) {
			t.Errorf("writeFlags[%q] = %q, progWriteFlags bit %v", name, flags, got)
		}
	}
	for name, ok := range writeOperand {
		if got := progs.Get()[name]&progWriteOperand != 0; got != ok {
			t.Errorf("writeOperand[%q] = %v, progWriteOperand bit %v", name, ok, got)
		}
	}
	for name, b := range progs.Get() {
		wf := len(writeFlags.Get()[name]) > 0
		if b&progWriteFlags != 0 != wf || b&progWriteOperand != 0 != writeOperand[name] {
			t.Errorf("progs[%q] = %b: write bits that the tables do not give", name, b)
		}
	}
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	ro, rw := 0, 0
	for _, line := range twinLines(t) {
		c := Prepare("Bash", map[string]any{"command": line}, env)
		for i := range c.Commands {
			cmd := &c.Commands[i]
			if !cmd.roKnown {
				t.Fatalf("%q: command %d: Prepare did not record ReadOnly", line, i)
			}
			if want := cmd.readOnlyTables(); cmd.ro != want {
				t.Errorf("%q: command %q: ReadOnly %v, the tables say %v", line, cmd.Text, cmd.ro, want)
			}
			if cmd.ro {
				ro++
			} else {
				rw++
			}
		}
		Release(c)
	}
	if ro == 0 || rw == 0 {
		t.Errorf("%d read-only and %d other commands: the corpus must hold both", ro, rw)
	}
	t.Logf("%d read-only commands, %d others", ro, rw)
}

// setsVarsBytes is the slow twin of setsVars: the same cases read byte by
// byte, a word ended by the byte past the text, without the byte table.
func setsVarsBytes(src string) bool {
	start := -1
	for i := 0; i <= len(src); i++ {
		var c byte
		if i < len(src) {
			c = src[i]
		}
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if isVarWord(src[start:i]) {
				return true
			}
			start = -1
		}
		switch c {
		case '=', '[':
			return true
		case '(', '+':
			if i+1 < len(src) && src[i+1] == c {
				return true
			}
		case '.':
			if (i == 0 || strings.IndexByte(" \t\n;&|({`", src[i-1]) >= 0) && (i+1 == len(src) || strings.IndexByte(" \t\n", src[i+1]) >= 0) {
				return true
			}
		}
	}
	return false
}

// TestWordScansTwin holds the byte scans of the walk to the scans they
// stand for: setsVars to its byte-by-byte twin, each ByteSet to
// strings.ContainsAny of its bytes and trimVersion to strings.TrimRight, on every line
// of the twin corpus, each of its words, and texts drawn of the bytes the
// scans look for (and bytes past ASCII, invalid UTF-8 among them).
func TestWordScansTwin(t *testing.T) {
	texts := twinLines(t)
	for _, l := range texts[:len(texts):len(texts)] {
		texts = append(texts, strings.Fields(l)...)
	}
	rng := rand.New(rand.NewPCG(612, 6))
	alphabet := []string{"a", "x", "_", "Z", "1", " ", "\t", "\n", "=", "[", "(", "((", "+", "++", ".", ";", "&", "|", "{", "`",
		"$", "/", "~", "@", "<", ":", "*", "?", "\x00", "é", "\xff", "3", ".12", "-", "python", "node", "read", "for", "let", "eval", "export", "source", "printf"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts = append(texts, b.String())
	}
	sets := []struct {
		set string
		b   ByteSet
	}{
		{"$`", BytesExpansion}, {"/~", BytesPathLike}, {" \t\n", BytesSpace}, {"{}*?[$", BytesBraceGlob}, {"{}", BytesBrace},
		{"*?[", bytesGlob}, {"@<:", bytesHidden}, {" \t\n;|&", bytesScript}, {"\x00\x7f?", NewByteSet("\x00\x7f?")},
	}
	yes, no := 0, 0
	for _, s := range texts {
		got, want := setsVars(s), setsVarsBytes(s)
		if got != want {
			t.Errorf("setsVars(%q) = %v, its twin %v", s, got, want)
		}
		if got {
			yes++
		} else {
			no++
		}
		if got, want := trimVersion(s), strings.TrimRight(s, "0123456789.-"); got != want {
			t.Errorf("trimVersion(%q) = %q, strings.TrimRight %q", s, got, want)
		}
		for _, set := range sets {
			if got, want := set.b.In(s), strings.ContainsAny(s, set.set); got != want {
				t.Errorf("the set of %q: In(%q) = %v, strings.ContainsAny %v", set.set, s, got, want)
			}
		}
	}
	if yes == 0 || no == 0 {
		t.Errorf("setsVars: %d texts that set a variable, %d that do not: the corpus must hold both", yes, no)
	}
}

// TestLstatInTwin holds lstatIn, the guard's look-up of a word in a folder
// that builds the path only when the call has not looked at it (with the
// NUL the system call reads), to lstat of the path joinName builds, on a
// fresh call each: files, folders, symlinks (dangling ones too), missing
// names, names with a NUL or a space, in folders that exist and do not;
// and a look-up by either kept for the other (one look per name per call).
func TestLstatInTwin(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"d", "d/sub"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"f", "d/g"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("f", filepath.Join(root, "lf")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("missing", filepath.Join(root, "dangle")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(root, "f"), filepath.Join(root, "hard")); err != nil {
		t.Fatal(err)
	}
	dirs := []string{root, filepath.Join(root, "d"), filepath.Join(root, "d/sub"), filepath.Join(root, "nope"), filepath.Join(root, "f"), "/etc", "/proc/self"}
	names := []string{"f", "d", "g", "sub", "lf", "dangle", "hard", "missing", "a b", "x\x00y", "f\x00", "passwd", "hosts", "status", "cwd",
		strings.Repeat("n", 300)}
	found, missing := 0, 0
	for _, dir := range dirs {
		for _, name := range names {
			if !cleanAbs(dir) || dir == "/" {
				t.Fatalf("folder %q: not lstatIn's case", dir)
			}
			fast, slow := &Call{}, &Call{}
			got, want := fast.lstatIn(dir, name), slow.lstat(joinName(dir, name))
			if got != want {
				t.Errorf("%s + %q: lstatIn %+v, lstat %+v", dir, name, got, want)
			}
			if again := fast.lstat(joinName(dir, name)); again != got || fast.looks.Load().n != 1 {
				t.Errorf("%s + %q: lstat after lstatIn %+v (%d look-ups kept), want the kept %+v", dir, name, again, fast.looks.Load().n, got)
			}
			if again := slow.lstatIn(dir, name); again != want || slow.looks.Load().n != 1 {
				t.Errorf("%s + %q: lstatIn after lstat %+v (%d look-ups kept), want the kept %+v", dir, name, again, slow.looks.Load().n, want)
			}
			if got.errno == 0 {
				found++
			} else {
				missing++
			}
		}
	}
	if found == 0 || missing == 0 {
		t.Errorf("%d names found, %d not: the table must hold both", found, missing)
	}
}

// callSummary spells out what a prepared Bash call tells the layers
// above (every field the walk fills, pointers followed), so that two
// preparations of a line can be compared as text.
func callSummary(c *Call) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err=%v fork=%v braces=%v dirs=%v cd=%v starts=%q wrapped=%q keys=%q/%v\n",
		c.Err, c.ForkBomb, c.BraceOverflow, c.DirOverflow, c.CdUnknown, c.starts, c.wrapped, c.Cut.Keys, c.Cut.KeysOK)
	dirs, lost := c.ShellAfter()
	fmt.Fprintf(&b, "after=%q %v acts=%q\n", dirs, lost, c.DenyActions())
	for i := range c.Commands {
		cmd := &c.Commands[i]
		r := cmd.More()
		doc := "<nil>"
		if r.stdinDoc != nil {
			doc = *r.stdinDoc
		}
		fmt.Fprintf(&b, "cmd %d: words=%q args=%q text=%q dyn=%v pipe=%d/%d parent=%d dynName=%v unseen=%q denyOnly=%v braces=%v ro=%v/%v lead=%q dirs=%q/%d\n",
			i, cmd.Words, cmd.Args, cmd.Text, cmd.Dynamic, cmd.Pipeline, cmd.Index, cmd.parent, cmd.DynamicName, cmd.unseen,
			cmd.denyOnly, cmd.BraceOverflow, cmd.ro, cmd.roKnown, cmd.lead, cmd.Dirs, cmd.DirsFrom)
		fmt.Fprintf(&b, "  rare: outs=%q ins=%q stdin=%q doc=%q assigns=%q code=%+v dyn=%v wrappers=%q alts=%q exp=%q expArgs=%q computed=%q\n",
			r.Outs, r.Ins, r.stdin, doc, r.Assigns, r.codeVars, r.Dyn, r.Wrappers, r.Alts, r.expanded, r.expandedArgs, r.computed)
	}
	paths := func(name string, ps []Path) {
		for _, p := range ps {
			looked := "<nil>"
			if p.looked != nil {
				looked = fmt.Sprintf("%+v", *p.looked)
			}
			fmt.Fprintf(&b, "%s: %q %q %q unsure=%v inside=%v tree=%v write=%v meta=%v removes=%v names=%v looked=%s\n",
				name, p.Raw, p.Abs, p.Real, p.Unsure, p.inside, p.Tree, p.MayWrite, p.Meta, p.Removes, p.Names, looked)
		}
	}
	paths("write", c.Writes)
	paths("modify", c.Modifies)
	paths("arg", c.ArgPaths())
	return b.String()
}

// TestSrcBytesPremise holds the parser to what srcBytes reads of a
// script: a byte the script does not hold is in no literal of its words,
// and a script without a $, ` or ( has no word that holds a statement. On
// every line of the twin corpus, each of its words (the scripts sh -c and
// eval run are words of the line) and scripts drawn of the bytes that
// matter (line continuations, here-documents, quotes of every kind).
func TestSrcBytesPremise(t *testing.T) {
	texts := twinLines(t)
	for _, l := range texts[:len(texts):len(texts)] {
		for _, f := range strings.Fields(l) {
			texts = append(texts, strings.Trim(f, `'"`))
		}
	}
	rng := rand.New(rand.NewPCG(612, 8))
	parts := []string{"a", "x=1", " ", ";", "\\\n", "\\", "{", "}", "{a,b}", "*", "?", "[", "]", "$", "`", "(", ")", "$(", "<(",
		"'", "\"", "$'\\x7b'", "<<EOF\n{x}\nEOF\n", "<<-E\n\t*\nE\n", "\n", "|", "&&", "#", "~", "!", "@(a)", "=", "${", "$((1))"}
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := rng.IntN(10); n >= 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		texts = append(texts, b.String())
	}
	parsed, withStmt := 0, 0
	for _, src := range texts {
		f, err := parse(src)
		if err != nil {
			continue
		}
		parsed++
		syntax.Walk(f, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Lit:
				for _, c := range []byte("{\\*?[") {
					if strings.IndexByte(n.Value, c) >= 0 && strings.IndexByte(src, c) < 0 {
						t.Errorf("%q: the literal %q holds %q, the script does not", src, n.Value, c)
					}
				}
			case *syntax.Word:
				if !noStmts(n) {
					syntax.Walk(n, func(m syntax.Node) bool {
						if _, ok := m.(*syntax.Stmt); ok {
							withStmt++
							if !strings.ContainsAny(src, "$`(") {
								t.Errorf("%q: a word holds a statement, the script holds none of $ ` (", src)
							}
							return false
						}
						return true
					})
				}
			}
			return true
		})
	}
	if parsed < 1000 || withStmt == 0 {
		t.Errorf("%d scripts parsed, %d words with statements: too few to hold the premise", parsed, withStmt)
	}
}

// TestSrcBytesTwin holds the walk that reads srcBytes (a script's bytes
// answer for the scans of its words) to the walk that scans every word:
// every line of the twin corpus prepared both ways says the same
// (callSummary), in a project with files, folders and a symlink.
func TestSrcBytesTwin(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Cwd: filepath.Join(root, "proj"), Home: filepath.Join(root, "home")}
	for _, d := range []string{"proj/src", "home/.ssh"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(env.Cwd, "test"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(env.Home, filepath.Join(env.Cwd, "homelink")); err != nil {
		t.Fatal(err)
	}
	defer func() { walkGates = true }()
	for _, line := range twinLines(t) {
		in := map[string]any{"command": line}
		walkGates = true
		fc := Prepare("Bash", in, env)
		fast := callSummary(fc)
		Release(fc)
		walkGates = false
		sc := Prepare("Bash", in, env)
		slow := callSummary(sc)
		Release(sc)
		if fast != slow {
			t.Errorf("%q: with the script's bytes\n%s\nscanning every word\n%s", line, fast, slow)
		}
	}
}
