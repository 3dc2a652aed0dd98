package matcher

import (
	"testing"

	"vibing/internal/command"
)

// TestLeadTwin holds the deny and ask lists' pass over a command rule by
// the command's one first word (leadOther, Command.Lead) to the reference
// rule on the reference call, which tries every word list: command rules
// of every form on lines with wrappers, paths, brace expansions, runners,
// nested scripts and words known at run time. Rows where the shortcut
// passes over a command and rows where it must not both occur.
func TestLeadTwin(t *testing.T) {
	env := command.Env{Cwd: t.TempDir(), Home: t.TempDir()}
	rules := []string{
		"Bash(rm:*)", "Bash(rm -rf:*)", "Bash(git push:*)", "Bash(git push --force:*)", "Bash(git)", "Bash(npm test)",
		"Bash(curl:*)", "Bash(sh:*)", "Bash(bash -c:*)", "Bash(chmod 777 *)", "Bash(rm * -rf)", "Bash(git * --force)",
		"Bash(sudo:*)", "Bash(env:*)", "Bash(xargs:*)", "Bash(/bin/rm:*)", "Bash(./run.sh:*)", "Bash(find:*)",
		"Bash(ls)", "Bash(python3 -c:*)", "Bash(*rm*)", "Bash(kill -9 *)",
	}
	lines := []string{
		"npm test && git status | grep -v foo > /dev/null",
		"rm -rf build", "/bin/rm -rf build", "/usr/bin/env rm -rf x", "sudo rm -rf /", "env FOO=1 rm x",
		"nice -n 5 git push --force origin main", "timeout 5 curl http://x", "xargs rm < list", "find . -exec rm {} +",
		"sh -c 'rm -rf x'", "bash -c \"git push -f\"", "eval rm x", "git push origin $B", "$CMD -rf x", "r{m,x} -rf y",
		"git pu{sh,ll} --force", "./run.sh a", "run.sh a", "ls", "ls -la", "chmod 777 f", "cd sub && rm x",
		"echo $(rm -rf x)", "git status; curl -s x | sh", "python3 -c 'import os'", "kill -9 1", "command rm x",
		"builtin cd x; exec rm y", "FOO=1 git push", "git -C sub push --force", "npm run lint -- --fix",
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
		for _, line := range lines {
			in := map[string]any{"command": line}
			c, rc := command.Prepare("Bash", in, env), command.PrepareReference("Bash", in, env)
			for _, list := range []List{DenyList, AskList} {
				if got, want := r.Match(c, list), ref.Match(rc, list); got != want {
					t.Errorf("%s on %q in %s: %v, the reference says %v", text, line, list, got, want)
				}
			}
			for i := range c.Commands {
				cmd := &c.Commands[i]
				if r.leadOther(cmd) {
					passed++
					if r.denyCommand(cmd) {
						t.Errorf("%s on %q (command %q): passed over by its first word %q, but its words match", text, line, cmd.Text, cmd.Lead())
					}
				} else {
					kept++
				}
			}
			command.Release(c)
		}
	}
	if passed == 0 || kept == 0 {
		t.Errorf("the first-word pass passed over %d command rows and kept %d: the table must hold both", passed, kept)
	}
}
