package session_test

import (
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// step is one call of a sequence. cwd is the folder Claude Code reports in
// the hook input (relative to the project; "" is the project), as verified
// with the real CLI: a cd lasts when the whole command exits 0 and the
// folder (pwd -P) lies inside the project, else the shell goes back; a cd
// in a subshell never lasts; every call runs in a new shell (no pushd
// stack).
type step struct {
	cwd     string
	tool    string // "" is Bash
	cmd     string // the command, or the file_path of a file tool
	want    session.Verdict
	tracked session.Verdict // the decision when the agent does not report cwd; "" = want
}

type sequence struct {
	name  string
	allow []string // on top of seqAllow
	ask   []string
	deny  []string // on top of seqDeny
	steps []step
}

var (
	seqDeny  = []string{"Read(config/prod.env)"}
	seqAllow = []string{"Bash(cd:*)", "Bash(pushd:*)", "Bash(popd)", "Bash(ls:*)", "Bash(cat:*)", "Bash(head:*)",
		"Bash(tail:*)", "Bash(grep:*)", "Bash(echo:*)", "Bash(true)", "Bash(false)", "Bash(exit:*)", "Bash(make:*)",
		"Bash(cp:*)", "Bash(rm:*)", "Bash(pwd)"}
)

// attackSequences must end refused: a relative path after an earlier cd
// names the denied file.
var attackSequences = []sequence{
	{name: "cd then cat", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "cd && true then head", steps: []step{
		{cmd: "cd config && true", want: session.Allow},
		{cwd: "config", cmd: "head prod.env", want: session.Deny}}},
	{name: "pushd then cat", steps: []step{
		{cmd: "pushd config", want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "cd to an echoed folder", steps: []step{
		{cmd: `cd "$(echo config)"`, want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "cd to a folder only known at run time", steps: []step{
		{cmd: `cd "$(ls -d conf*)"`, want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "cd into a symlinked folder", steps: []step{
		{cmd: "cd cfglink", want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}}, // the CLI reports pwd -P
	{name: "dot slash", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "tail ./prod.env", want: session.Deny}}},
	{name: "grep", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "grep KEY prod.env", want: session.Deny}}},
	{name: "copy it out", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "cp prod.env /tmp/leak", want: session.Deny}}},
	{name: "input redirection", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "cat < prod.env", want: session.Deny}}},
	{name: "two hops", steps: []step{
		{cmd: "cd sub", want: session.Allow},
		{cwd: "sub", cmd: "cd ../config", want: session.Allow},
		{cwd: "config", cmd: "tail prod.env", want: session.Deny}}},
	{name: "several calls later", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "ls", want: session.Allow},
		{cwd: "config", cmd: "cd .", want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "a failing command before a last one that succeeds", steps: []step{
		{cmd: "cd config; false; true", want: session.Allow},
		{cwd: "config", cmd: "cat prod.env", want: session.Deny}}},
	{name: "overwrite", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "echo x > prod.env", want: session.Deny}}},
	{name: "guarded folder", steps: []step{
		{cmd: "cd .vibing", want: session.Allow},
		{cwd: ".vibing", cmd: "rm -rf chat", want: session.Deny}}},
	{name: "a script in a guarded folder", steps: []step{
		{cmd: "cd .vibing", want: session.Allow},
		{cwd: ".vibing", cmd: `python3 -c "import shutil; shutil.rmtree('chat')"`, want: session.Deny}}},
	{name: "find -delete in a guarded folder", steps: []step{
		{cmd: "cd .vibing", want: session.Allow},
		{cwd: ".vibing", cmd: "find chat -delete", want: session.Deny}}},
	{name: "find -delete after a cd on the same line", steps: []step{
		{cmd: "cd .vibing && find chat -delete", want: session.Deny}}},
	{name: "ask rule", ask: []string{"Read(sub/**)"}, steps: []step{
		{cmd: "cd sub", want: session.Allow},
		{cwd: "sub", cmd: "cat notes.txt", want: session.Ask}}},
}

// everydaySequences must stay allowed.
var everydaySequences = []sequence{
	{name: "cd src then ls", steps: []step{
		{cmd: "cd src", want: session.Allow},
		{cwd: "src", cmd: "ls", want: session.Allow}}},
	{name: "cd /tmp is undone by the CLI", steps: []step{
		{cmd: "cd /tmp", want: session.Allow},
		{cmd: "cat x", want: session.Allow}}},
	{name: "a failed cd", steps: []step{
		{cmd: "cd nope", want: session.Allow},
		{cmd: "cat README.md", want: session.Allow}}},
	{name: "a subshell cd does not last", steps: []step{
		{cmd: "(cd config && make)", want: session.Allow},
		{cmd: "cat prod.env", want: session.Allow}}},
	{name: "cd config then ls", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "ls -la", want: session.Allow}}},
	{name: "cd config then another file", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "cat other.env", want: session.Allow}}},
	{name: "cd and back", steps: []step{
		{cmd: "cd config && cd ..", want: session.Allow},
		{cmd: "cat prod.env", want: session.Allow, tracked: session.Deny}}},
	{name: "write below an allowed folder", allow: []string{"Write(src/**)"}, steps: []step{
		{cmd: "cd src", want: session.Allow},
		{cwd: "src", cmd: "echo x > out.txt", want: session.Allow, tracked: session.Ask}}},
	{name: "a cd whose command failed does not last", steps: []step{
		{cmd: "cd config && false", want: session.Allow},
		{cmd: "cat prod.env", want: session.Allow, tracked: session.Deny}}},
	{name: "a cd before exit 3 does not last", steps: []step{
		{cmd: "cd config; exit 3", want: session.Allow},
		{cmd: "cat prod.env", want: session.Allow, tracked: session.Deny}}},
	{name: "parent path", steps: []step{
		{cmd: "cd src", want: session.Allow},
		{cwd: "src", cmd: "cat ../README.md", want: session.Allow}}},
	{name: "absolute path", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", cmd: "cat /etc/hostname", want: session.Allow}}},
	{name: "Read tool after cd", steps: []step{
		{cmd: "cd config", want: session.Allow},
		{cwd: "config", tool: "Read", cmd: "$PROJ/config/other.env", want: session.Allow}}},
	{name: "rm in the shell's folder", steps: []step{
		{cmd: "cd src", want: session.Allow},
		{cwd: "src", cmd: "rm -rf build", want: session.Allow}}},
	{name: "a script in an ordinary folder", allow: []string{"Bash(python3:*)", "Bash(find:*)"}, steps: []step{
		{cmd: "cd src", want: session.Allow},
		{cwd: "src", cmd: `python3 -c "print(1)" && find . -name '*.go'`, want: session.Allow}}},
	{name: "pushd then popd", steps: []step{
		{cmd: "pushd src", want: session.Allow},
		{cwd: "src", cmd: "popd", want: session.Allow}}},
}

// TestShellFolderSequences runs every sequence twice: with the folder the
// CLI reports (the hook input's cwd), and without it, where the engine
// follows the lines it let through.
func TestShellFolderSequences(t *testing.T) {
	for _, group := range []struct {
		name string
		seqs []sequence
	}{{"attack", attackSequences}, {"everyday", everydaySequences}} {
		for _, seq := range group.seqs {
			for _, reported := range []bool{true, false} {
				mode := "reported"
				if !reported {
					mode = "tracked"
				}
				t.Run(group.name+"/"+seq.name+"/"+mode, func(t *testing.T) {
					t.Parallel()
					runSequence(t, seq, reported)
				})
			}
		}
	}
}

func runSequence(t *testing.T, seq sequence, reported bool) {
	f := newFixture(t)
	for _, d := range []string{"config", "sub"} {
		if err := os.MkdirAll(filepath.Join(f.proj, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"config/prod.env", "config/other.env", "README.md", "prod.env"} {
		if err := os.WriteFile(filepath.Join(f.proj, p), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("config", filepath.Join(f.proj, "cfglink")); err != nil {
		t.Fatal(err)
	}
	settings := frontmatter.Settings{Vibing: true,
		Allow: f.expandAll(append(append([]string(nil), seqAllow...), seq.allow...)),
		Ask:   f.expandAll(seq.ask),
		Deny:  f.expandAll(append(append([]string(nil), seqDeny...), seq.deny...))}
	e, err := session.New(nil, settings, tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range seq.steps {
		cwd := ""
		if reported {
			cwd = filepath.Join(f.proj, s.cwd)
		}
		tool, input := "Bash", bash(s.cmd)
		if s.tool != "" {
			tool, input = s.tool, file(f.expand(s.cmd))
		}
		want := s.want
		if !reported && s.tracked != "" {
			want = s.tracked
		}
		d := e.DecideIn(tool, input, cwd)
		checkShape(t, tool, d)
		if d.Decision != want {
			t.Errorf("step %d: DecideIn(%s %q, cwd %q) = %s, want %s (reason %q, rule %q)", i+1, tool, s.cmd, cwd, d.Decision, want, d.Reason, d.Rule)
		}
	}
}

// TestShellLostFailsClosed checks that once a line the engine let through
// moved the shell somewhere only known at run time, and the agent does not
// say where the shell is, relative paths make deny file rules fire, while
// absolute ones and lines without paths are decided as usual.
func TestShellLostFailsClosed(t *testing.T) {
	f := newFixture(t)
	settings := frontmatter.Settings{Vibing: true, Allow: seqAllow, Deny: []string{"Read(secrets/**)"}}
	e, err := session.New(nil, settings, tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []step{
		{cmd: "cat key.txt", want: session.Allow},
		{cmd: `cd "$D"`, want: session.Allow},
		{cmd: "ls", want: session.Allow},
		{cmd: "cat key.txt", want: session.Deny},
		{cmd: "cat " + f.proj + "/README.md", want: session.Allow},
		{cmd: "cd " + f.proj + " && cat key.txt", want: session.Allow},
		{cmd: "cat key.txt", want: session.Deny}, // the shell stays lost: calls may run in any order
	} {
		if d := e.DecideIn("Bash", bash(s.cmd), ""); d.Decision != s.want {
			t.Errorf("step %d: DecideIn(%q) = %s, want %s (%s)", i+1, s.cmd, d.Decision, s.want, d.Reason)
		}
	}
	// the CLI naming the folder decides from there
	if d := e.DecideIn("Bash", bash("cat key.txt"), f.proj); d.Decision != session.Allow {
		t.Errorf("DecideIn(cat key.txt, cwd %s) = %s, want allow (%s)", f.proj, d.Decision, d.Reason)
	}
	if d := e.DecideIn("Bash", bash("cat key.txt"), filepath.Join(f.proj, "secrets")); d.Decision != session.Deny {
		t.Errorf("DecideIn(cat key.txt, cwd secrets) = %s, want deny (%s)", d.Decision, d.Reason)
	}
}
