package matcher

import (
	"strings"
	"testing"

	"vibing/internal/command"
)

// TestAllowLeadTwin holds the first test of coveredBy (an exact or prefix
// allow rule whose first word's leadKey is not the command's is passed
// over) to allowCommand and to the reference rule, which takes no such
// shortcut: on every rule and line, Covers answers as the reference does,
// and no command passed over is one allowCommand covers. Both outcomes
// occur; words share a start or a length with the rules' and run past
// the seven bytes the key holds.
func TestAllowLeadTwin(t *testing.T) {
	env := command.Env{Cwd: t.TempDir(), Home: t.TempDir()}
	rules := []string{
		"Bash(npm test:*)", "Bash(npm test)", "Bash(git status:*)", "Bash(grep:*)", "Bash(git)", "Bash(gti:*)",
		"Bash(npm run *)", "Bash(ls)", "Bash(ls -la)", "Bash(docker-compose:*)", "Bash(docker-composer:*)",
		"Bash(/bin/ls:*)", "Bash(./run.sh:*)", "Bash(sudo:*)", "Bash(env:*)", "Bash(make)", "Bash(cat:*)",
		"Bash(*)", "Bash(echo *)", "Bash(golangci-lint run:*)", "Bash(golangci-lint-v2:*)", "Bash(x)",
	}
	lines := []string{
		"npm test && git status | grep -v foo > /dev/null", "npm test", "npm tests", "npx test", "git", "gti status",
		"git status", "grep -r x .", "grepx y", "ls", "ls -la", "/bin/ls -la", "./run.sh a", "run.sh a",
		"sudo ls", "env FOO=1 ls", "make", "makes", "cat a b", "echo hi", "docker-compose up", "docker-composer up",
		"golangci-lint run ./...", "golangci-lint-v2 run", "golangci-linx run", "$CMD x", "x", "FOO=1 ls", "l{s,x}",
		"npm run lint -- --fix", "timeout 5 ls", "cd sub && ls && cat x",
	}
	passed, kept := 0, 0
	for _, text := range rules {
		r, err := ParseRule(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		ref, err := ParseReferenceRule(text)
		if err != nil {
			t.Fatalf("%s as a reference rule: %v", text, err)
		}
		if ref.lead != 0 {
			t.Fatalf("%s: the reference rule has a first test", text)
		}
		for _, line := range lines {
			in := map[string]any{"command": line}
			c, rc := command.Prepare("Bash", in, env), command.PrepareReference("Bash", in, env)
			got, _ := Covers([]*Rule{r}, c)
			want, _ := Covers([]*Rule{ref}, rc)
			if got != want {
				t.Errorf("%s on %q: covers %v, the reference says %v", text, line, got, want)
			}
			for i := range c.Commands {
				cmd := &c.Commands[i]
				var lead uint64
				if !cmd.DynamicName && len(cmd.Words) > 0 {
					lead = leadKey(cmd.Words[0])
				}
				if r.kind == kindBash && r.lead != 0 && lead != 0 && r.lead != lead {
					passed++
					if r.allowCommand(cmd) {
						t.Errorf("%s on %q (command %q): passed over by its first word, but it covers it", text, line, cmd.Text)
					}
				} else {
					kept++
				}
			}
			command.Release(c)
		}
	}
	if passed == 0 || kept == 0 {
		t.Errorf("the first test passed over %d command rows and kept %d: the table must hold both", passed, kept)
	}
	// the key: words that differ in their length or first seven bytes differ in it
	for _, p := range [][2]string{{"git", "gti"}, {"git", "gitx"}, {"golangci-lint", "golangci-lint-v2"}, {"docker-compose", "docker-composer"}, {"a", "b"},
		{strings.Repeat("x", 300), strings.Repeat("x", 299)}} {
		if leadKey(p[0]) == leadKey(p[1]) && len(p[0]) < 255 {
			t.Errorf("leadKey(%q) = leadKey(%q)", p[0], p[1])
		}
	}
	if leadKey("") != 0 || leadKey("x") == 0 {
		t.Error("leadKey: 0 is for no word alone")
	}
}
