package matcher

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"vibing/internal/command"
)

// TestAllowIndexTwin holds AllowIndex (each command of a line meets only
// the allow rules of its first word and those that fix none) to the whole
// list and to the reference rules, which fix no first word: on drawn lists
// (in drawn order, with rules of other kinds and more first words than the
// index keeps apart) and drawn lines, CoversBy answers as Covers does, with
// the same deciding rule, and as the reference list does.
func TestAllowIndexTwin(t *testing.T) {
	env := command.Env{Cwd: t.TempDir(), Home: t.TempDir()}
	pool := []string{
		"Bash(npm test:*)", "Bash(npm test)", "Bash(git status:*)", "Bash(grep:*)", "Bash(git)", "Bash(gti:*)",
		"Bash(npm run *)", "Bash(ls)", "Bash(ls -la)", "Bash(docker-compose:*)", "Bash(docker-composer:*)",
		"Bash(/bin/ls:*)", "Bash(./run.sh:*)", "Bash(sudo:*)", "Bash(env:*)", "Bash(make)", "Bash(cat:*)",
		"Bash(*)", "Bash(echo *)", "Bash(golangci-lint run:*)", "Bash(golangci-lint-v2:*)", "Bash(x)",
		"Bash(git:*)", "Bash(git log:*)", "Bash(npm:*)", "Bash(grep -v:*)", "Bash(tail:*)", "Bash(head *)",
		"/tool:Bash:.*status.*/", "Bash", "Read", "Edit(src/**)", "Bash(find . -name *)", "Bash(timeout:*)",
		"Bash(a1)", "Bash(a2)", "Bash(a3)", "Bash(a4)", "Bash(a5)", "Bash(a6)", "Bash(a7)", "Bash(a8)", "Bash(a9)",
	}
	lines := []string{
		"npm test && git status | grep -v foo > /dev/null", "npm test", "npm tests", "npx test", "git", "gti status",
		"git status", "grep -r x .", "grepx y", "ls", "ls -la", "/bin/ls -la", "./run.sh a", "run.sh a",
		"sudo ls", "env FOO=1 ls", "make", "makes", "cat a b", "echo hi", "docker-compose up", "docker-composer up",
		"golangci-lint run ./...", "golangci-lint-v2 run", "golangci-linx run", "$CMD x", "x", "FOO=1 ls", "l{s,x}",
		"npm run lint -- --fix", "timeout 5 ls", "cd sub && ls && cat x", "git log | tail -3", "a1 && a9 | a5",
		"find . -name x | head -2", "git status; npm test; ls", "echo $(git status)", "ls > out.txt", "cat x | grep y",
	}
	type pair struct{ fast, ref *Rule }
	parsed := make([]pair, len(pool))
	for i, text := range pool {
		r, err := ParseRule(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		ref, err := ParseReferenceRule(text)
		if err != nil {
			t.Fatalf("%s as a reference rule: %v", text, err)
		}
		parsed[i] = pair{r, ref}
	}
	calls := make([][2]*command.Call, len(lines))
	for i, line := range lines {
		in := map[string]any{"command": line}
		calls[i] = [2]*command.Call{command.Prepare("Bash", in, env), command.PrepareReference("Bash", in, env)}
	}
	rng := rand.New(rand.NewPCG(26, 7))
	covered, notCovered := 0, 0
	for range 4000 {
		var list, refs []*Rule
		for range 1 + rng.IntN(24) {
			p := parsed[rng.IntN(len(parsed))]
			list, refs = append(list, p.fast), append(refs, p.ref)
		}
		x := NewAllowIndex(list)
		for i, c := range calls {
			got, gotBy := CoversBy(x, c[0])
			want, wantBy := Covers(list, c[0])
			ref, refBy := Covers(refs, c[1])
			if got != want || gotBy != wantBy || got != ref || fmt.Sprint(text(gotBy)) != fmt.Sprint(text(refBy)) {
				t.Fatalf("%q on %q: by index %v %s, whole list %v %s, reference %v %s",
					texts(list), lines[i], got, text(gotBy), want, text(wantBy), ref, text(refBy))
			}
			if got {
				covered++
			} else {
				notCovered++
			}
		}
	}
	if covered < 1000 || notCovered < 1000 {
		t.Fatalf("%d covered, %d not: the draws miss a side", covered, notCovered)
	}
}

func text(r *Rule) string {
	if r == nil {
		return "<none>"
	}
	return r.Text
}

func texts(rules []*Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = text(r)
	}
	return out
}
