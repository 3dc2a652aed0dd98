package command

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wordInfo is what static analysis knows of one shell word.
type wordInfo struct {
	text     string   // the literal text the shell passes; the source text when dyn
	dyn      bool     // some part is only known at run time
	computed bool     // some part is computed on the line (a substitution, $1, a variable set by read ...), not only read from the environment
	glob     bool     // an unquoted glob character: the shell expands it to file names
	values   []string // when dyn only through variables of known values: every text the word can be
	why      string   // the source text of the part that is computed, for reasons
}

// maxWordValues bounds the texts one word may expand to through variables.
const maxWordValues = 16

// word returns the literal text the shell would pass for w, and whether it
// holds an expansion that cannot be resolved statically (then the text is the
// source text). $HOME and $PWD resolve from the call's environment, and
// variables the line sets to one literal value resolve to it (vars.go).
func (s *scriptWalk) word(w *syntax.Word) (string, bool) {
	wi := s.wordInfo(w)
	return wi.text, wi.dyn
}

// wordInfo analyses one word.
func (s *scriptWalk) wordInfo(w *syntax.Word) wordInfo {
	if len(w.Parts) == 1 {
		// the common case: one plain or single-quoted literal
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if s.text.known { // (the script's bytes answer for its literals)
				wi := wordInfo{text: p.Value}
				if !s.text.noEscape {
					wi.text = unescape(p.Value, false)
				}
				wi.glob = !s.text.noGlob && hasGlobChar(p.Value)
				return wi
			}
			return wordInfo{text: unescape(p.Value, false), glob: hasGlobChar(p.Value)}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return wordInfo{text: p.Value}
			}
		}
	}
	e := expansion{cands: []string{""}}
	s.lit(&e, w.Parts, false)
	wi := wordInfo{dyn: e.dyn, computed: e.computed, glob: e.glob, why: e.why}
	if !e.dyn {
		wi.text = e.cands[0]
		return wi
	}
	if e.cands != nil {
		if len(e.cands) == 1 {
			wi.text, wi.dyn = e.cands[0], false
			return wi
		}
		wi.values = e.cands
	}
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start >= 0 && end <= len(s.src) && start <= end {
		wi.text = s.src[start:end]
	}
	if wi.why == "" {
		wi.why = wi.text
	}
	return wi
}

// ByteSet is a set of ASCII bytes as two masks of 64 bits (bytes 0-63,
// 64-127), made once (NewByteSet) for a scan made of many words: In is
// strings.ContainsAny(s, set) without its search of set for each rune of
// a short s (a byte of a rune past ASCII is no ASCII byte).
type ByteSet struct{ lo, hi uint64 }

// NewByteSet is the set of the bytes of set, which holds ASCII bytes only.
func NewByteSet(set string) ByteSet {
	var b ByteSet
	for i := 0; i < len(set); i++ {
		if c := set[i]; c < 64 {
			b.lo |= 1 << c
		} else {
			b.hi |= 1 << (c & 63)
		}
	}
	return b
}

// In reports whether s holds one of the bytes of b.
func (b ByteSet) In(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		m := b.lo
		if c >= 64 {
			m = b.hi
		}
		if c < 128 && m>>(c&63)&1 != 0 {
			return true
		}
	}
	return false
}

// The sets the walk, the guard, the autorun step and the default rules
// scan words for.
var (
	BytesExpansion = NewByteSet("$`")       // an expansion still in a word
	BytesPathLike  = NewByteSet("/~")       // a word that looks like a path
	BytesSpace     = NewByteSet(" \t\n")    // a script text, not a name
	BytesBraceGlob = NewByteSet("{}*?[$")   // a command word only known once expanded
	BytesBrace     = NewByteSet("{}")       // a brace in a command word
	bytesGlob      = NewByteSet("*?[")      // a glob character
	bytesHidden    = NewByteSet("@<:")      // a path inside a word's syntax (hiddenPaths)
	bytesScript    = NewByteSet(" \t\n;|&") // a word that may be a script
)

// hasGlobChar reports whether s holds *, ? or [.
func hasGlobChar(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true // a bracket expression; a lone [ (the test command) is not
			}
		}
	}
	return false
}

// expansion accumulates the texts a word can be while its parts are read.
type expansion struct {
	sawValue bool     // a value substitution ($(date)) stands in the word so far
	cands    []string // every text so far; nil once unknown
	dyn      bool     // some part is not a plain literal
	computed bool
	glob     bool
	why      string
}

func (e *expansion) add(v string) {
	for i := range e.cands {
		e.cands[i] += v
	}
}

// addValues crosses the texts so far with the values of one part.
func (e *expansion) addValues(vals []string) {
	e.dyn = true
	if e.cands == nil {
		return
	}
	if len(vals) == 0 || len(e.cands)*len(vals) > maxWordValues {
		e.cands = nil
		return
	}
	out := make([]string, 0, len(e.cands)*len(vals))
	for _, c := range e.cands {
		for _, v := range vals {
			out = append(out, c+v)
		}
	}
	e.cands = out
}

// unknown marks a part whose value cannot be known.
func (e *expansion) unknown(computed bool, why string) {
	e.dyn = true
	e.cands = nil
	if computed && !e.computed {
		e.computed = true
		e.why = why
	}
}

// lit reads parts into e. It reports whether every part was a literal
// (kept for callers that only need that).
func (s *scriptWalk) lit(e *expansion, parts []syntax.WordPart, quoted bool) {
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if !quoted && hasGlobChar(p.Value) {
				e.glob = true
			}
			if e.sawValue && strings.ContainsRune(p.Value, '/') && !e.computed {
				// a path built on a value ($(date)/../.env): where it
				// leads is only known at run time
				e.computed, e.why = true, p.Value
			}
			e.add(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				v, good := ansiC(p.Value)
				if !good {
					e.unknown(true, "$'"+p.Value+"'")
					continue
				}
				e.add(v)
			} else {
				e.add(p.Value)
			}
		case *syntax.DblQuoted:
			s.lit(e, p.Parts, true)
		case *syntax.ParamExp:
			s.param(e, p, quoted)
		case *syntax.CmdSubst:
			if v, ok := s.foldSubst(p); ok {
				if !quoted && (s.ifsSet() || strings.ContainsAny(v, " \t\n")) {
					// unquoted, the output is split into several words
					e.unknown(true, s.srcOf(p))
					continue
				}
				e.addValues([]string{v})
				continue
			}
			if dir, ok := s.pwdSubst(p); ok {
				e.addValues([]string{dir}) // $(pwd): the folder the walk knows, as $PWD
				continue
			}
			if s.valueSubst(p) {
				e.unknown(false, "") // a value (a date, a commit id), not a file name
				e.sawValue = true
				continue
			}
			e.unknown(true, s.srcOf(p))
		case *syntax.ExtGlob:
			e.glob = true
			e.unknown(false, "")
		case *syntax.ArithmExp, *syntax.ProcSubst:
			// a number, or a /dev/fd path to a pipe whose commands are walked
			e.unknown(false, "")
		default:
			e.unknown(true, s.srcOf(p))
		}
	}
}

func (s *scriptWalk) srcOf(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start >= 0 && end <= len(s.src) && start <= end {
		return s.src[start:end]
	}
	return ""
}

// param reads one parameter expansion into e.
func (s *scriptWalk) param(e *expansion, p *syntax.ParamExp, quoted bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil ||
		p.Slice != nil || p.Repl != nil || p.Names != 0 || p.Flags != nil || p.NestedParam != nil {
		e.unknown(true, s.srcOf(p))
		return
	}
	name := p.Param.Value
	vals, computed, env := s.lookupVar(name)
	if env {
		switch name {
		case "HOME":
			if s.w.c.Env.Home != "" {
				vals, env = []string{s.w.c.Env.Home}, false
			}
		case "PWD":
			switch dir, ok := s.w.dir.sure(); {
			case ok:
				vals, env = []string{dir}, false
			case !s.w.dir.unknown && len(s.w.dir.dirs) > 0:
				// cd x; ...: one of the folders the shell may be in
				vals, env = append([]string(nil), s.w.dir.dirs...), false
			default:
				computed, env = true, false // a folder only known at run time
			}
		case "_", "OLDPWD", "REPLY", "BASH_COMMAND", "BASH_REMATCH", "PIPESTATUS", "FUNCNAME", "RANDOM", "SRANDOM", "LINENO", "SECONDS":
			computed, env = true, false
		}
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull:
			// ${X:?msg}: X's value or nothing runs
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			var def string
			if p.Exp.Word != nil {
				d, dyn := s.plainLit(p.Exp.Word)
				if dyn {
					e.unknown(true, s.srcOf(p))
					return
				}
				def = d
			}
			if env || computed {
				// ${X:-name}: the value may be the default the line spells
				// (X unset) or X's, which the line does not know: file rules
				// fire on the word
				e.unknown(computed || def != "", s.srcOf(p))
				return
			}
			vals = append(append([]string(nil), vals...), def)
		default:
			e.unknown(true, s.srcOf(p))
			return
		}
	}
	globVar := false
	if vi := s.varOf(name); vi != nil && vi.glob {
		globVar = true // a for loop over file patterns: the word is one of the files they name
		e.glob = true
	}
	if !quoted && !computed && !env && !globVar {
		for _, v := range vals {
			if strings.ContainsAny(v, " \t\n*?[") || s.ifsSet() {
				// unquoted, the value is split into words (c="rm x"; $c)
				// or expanded as a file pattern: only known at run time
				computed = true
				break
			}
		}
	}
	switch {
	case computed:
		e.unknown(true, s.srcOf(p))
	case env:
		e.unknown(false, "")
	default:
		e.addValues(vals)
	}
}

// ifsSet reports whether the line sets IFS, which changes how every
// unquoted expansion is split.
func (s *scriptWalk) ifsSet() bool {
	for sc := s; sc != nil; sc = sc.outer {
		if sc.vars != nil && (sc.vars["IFS"] != nil || (sc.vars["*"] != nil && sc.vars["*"].computed)) {
			return true
		}
	}
	return false
}

// pwdSubst resolves $(pwd) (and pwd -L/-P) to the folder the shell is in,
// when the walk knows it.
func (s *scriptWalk) pwdSubst(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 || len(cs.Stmts[0].Redirs) > 0 {
		return "", false
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(ce.Args) > 2 || ce.Args[0].Lit() != "pwd" {
		return "", false
	}
	if len(ce.Args) == 2 && ce.Args[1].Lit() != "-L" && ce.Args[1].Lit() != "-P" {
		return "", false
	}
	dir, ok := s.w.dir.sure()
	if !ok {
		return "", false
	}
	if len(ce.Args) == 2 && ce.Args[1].Lit() == "-P" {
		dir = RealDir(dir)
	}
	return dir, true
}

// valueSubst reports whether a command substitution only prints a value
// that is not a file name taken from the file system: date, whoami,
// uname, git rev-parse/describe/config/branch ... with literal words.
func (s *scriptWalk) valueSubst(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	ce, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Args) == 0 || len(cs.Stmts[0].Redirs) > 0 {
		return false
	}
	var words []string
	for _, a := range ce.Args {
		v, dyn := s.plainLit(a)
		if dyn {
			return false
		}
		words = append(words, v)
	}
	switch words[0] {
	case "date", "whoami", "id", "uname", "hostname", "nproc", "arch", "logname", "uuidgen":
		return true
	case "git":
		sub, rest := gitSubcommand(words[1:])
		for _, a := range rest {
			if strings.HasPrefix(a, "--show-") || strings.HasPrefix(a, "--git-") || strings.HasPrefix(a, "--path") ||
				strings.HasPrefix(a, "--absolute") || strings.HasPrefix(a, "--local-env") || a == "--get-regexp" || strings.HasPrefix(a, "--resolve") {
				return false // a path (--show-toplevel, --git-dir), not a value
			}
		}
		switch sub {
		case "rev-parse", "describe", "config", "branch", "rev-list", "symbolic-ref", "merge-base":
			return true
		}
	case "node", "python3", "python", "go", "ruby", "npm", "rustc", "java":
		return len(words) == 2 && (words[1] == "--version" || words[1] == "-v" || words[1] == "version" || words[1] == "-V")
	}
	return false
}

// foldSubst returns the output of a command substitution whose output is a
// literal: echo or printf '%s' of literal words, or cat of a here-document
// with no expansions (git commit -m "$(cat <<'EOF' ... EOF)"). Trailing
// newlines are dropped, as the shell drops them.
func (s *scriptWalk) foldSubst(cs *syntax.CmdSubst) (string, bool) {
	if len(cs.Stmts) != 1 {
		return "", false
	}
	st := cs.Stmts[0]
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 || st.Background || st.Negated {
		return "", false
	}
	var words []string
	for _, a := range ce.Args {
		v, dyn := s.plainLit(a)
		if dyn {
			return "", false
		}
		words = append(words, v)
	}
	out, ok := foldOutput(words, st.Redirs, s)
	if ok {
		s.w.folded = append(s.w.folded, ce) // its output is data: allow rules need not cover it
	}
	return out, ok
}

// foldOutput is the literal output of echo, printf '%s' or cat <<EOF.
func foldOutput(words []string, redirs []*syntax.Redirect, s *scriptWalk) (string, bool) {
	switch {
	case words[0] == "echo" && len(redirs) == 0:
		args := words[1:]
		for len(args) > 0 && (args[0] == "-n" || args[0] == "-E") {
			args = args[1:]
		}
		return strings.TrimRight(strings.Join(args, " "), "\n"), true
	case words[0] == "printf" && len(redirs) == 0 && len(words) >= 2 && (words[1] == "%s" || words[1] == "%s\\n"):
		return strings.TrimRight(strings.Join(words[2:], ""), "\n"), true
	case words[0] == "cat" && len(words) == 1 && len(redirs) == 1:
		r := redirs[0]
		if (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc) && r.Hdoc != nil {
			if v, dyn := s.plainLit(r.Hdoc); !dyn {
				return strings.TrimRight(v, "\n"), true
			}
		}
	}
	return "", false
}

// unescape removes the backslashes the shell removes.
func unescape(v string, quoted bool) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch != '\\' || i+1 >= len(v) {
			b.WriteByte(ch)
			continue
		}
		next := v[i+1]
		if quoted && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(ch)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

// ansiC decodes a $'...' string.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch != '\\' || i+1 >= len(v) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch c := v[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x':
			j := i + 1
			for j < len(v) && j < i+3 && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				return b.String(), false
			}
			n, _ := strconv.ParseUint(v[i+1:j], 16, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j < i+3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			// \u, \U, \c...: not decoded here; treat as unknown.
			return b.String(), false
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// isFlagWord reports whether w is an option word (not "-", not "--").
func IsFlagWord(w string) bool {
	return len(w) > 1 && w[0] == '-' && w != "--"
}

// dynAt reports whether word i is only known at run time.
func (cmd *Command) DynAt(i int) bool { dyn := cmd.More().Dyn; return i < len(dyn) && dyn[i] }

// quoteWord quotes w for a shell line. A word a rule could not hold as
// written — with '*' (a wildcard in rules), unbalanced parentheses, or whitespace other
// than single spaces (rules fold whitespace) — is written as $'...' with
// those bytes escaped, so the rule names exactly that word.
func QuoteWord(w string) string {
	if strings.ContainsRune(w, '*') || !Balanced(w) || strings.Join(strings.Fields(w), " ") != w {
		return ansiQuote(w)
	}
	if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
		return q
	}
	return ansiQuote(w)
}

// balanced reports whether the parentheses in s are balanced (quotes are not
// looked into: a rule argument has none that matter here).
func Balanced(s string) bool {
	depth := 0
	for _, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

func ansiQuote(w string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); i++ {
		ch := w[i]
		if (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strings.IndexByte(",._+:@%/=-", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		b.WriteString(`\x`)
		b.WriteByte(hex[ch>>4])
		b.WriteByte(hex[ch&15])
	}
	b.WriteByte('\'')
	return b.String()
}
