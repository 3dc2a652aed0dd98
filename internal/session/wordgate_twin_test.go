package session_test

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
	"vibing/internal/twingen"
)

// TestWordGateTwin holds the deny and ask rules' word tests (a command
// rule naming a word past its command is passed over on a line none of
// whose word lists carries it: matcher.WordTest) to the slow twin, which
// tries every rule: drawn deny, ask and allow command rules (words past the
// command, options in any order, "--", a path as command name) and drawn
// lines whose commands carry the word, do not, or may at run time or only
// behind a wrapper, a runner or a quote (sudo, env, sh -c, xargs, find
// -exec, $X, "pu"sh, braces). Decision, reason, rule and source must be the
// same; the draws must deny, ask and allow.
func TestWordGateTwin(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w, err := twingen.NewWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	rules := []string{"Bash(git push:*)", "Bash(git push --force:*)", "Bash(git push -f:*)", "Bash(git -C . push:*)",
		"Bash(git push origin main)", "Bash(git clean -fdx)", "Bash(git reset --hard:*)", "Bash(git -- push)",
		"Bash(npm publish:*)", "Bash(npm run build)", "Bash(npm run *)", "Bash(rm -rf:*)", "Bash(/usr/bin/git push:*)",
		"Bash(make deploy)", "Bash(docker system prune:*)", "Bash(kubectl delete pod:*)", "Bash(git tag:*)",
		"Bash(git status:*)", "Bash(npm test:*)", "Bash(grep:*)", "Bash(git:*)", "Bash(make:*)", "Bash(git push -- x)",
		"Bash(sudo git push:*)", "Bash(sh -c:*)", "Bash(xargs git push)", "Bash(git - push)", "Bash(git push -)"}
	frags := []string{"git status", "git status --short", "git push", "git push origin main", "git -C . push", "git push --force",
		"git --force push", "git origin push -f", "git push -f origin", "/usr/bin/git push", "sudo git push", "env A=1 git push",
		"npm publish", "npm test", "npm run build", "npm run lint", "sh -c 'git push'", `bash -c "npm publish"`, "xargs git push",
		"git $X", "git pu$X", `git "push"`, `git pu\sh`, "git 'pu''sh'", "git {push,pull}", "eval git push", "git $(echo push)",
		"make deploy", "make", `find . -exec git push \;`, "git clean -f -d -x", "git clean -dfx", "docker system prune -a",
		"kubectl delete pod x", "git -- push", "git push -- x", "time git push", "nohup npm publish", "command git push",
		"X=push; git $X", "grep -v foo", "cat x", "git tag v1", "git reset --hard HEAD", "git - push", "git push -",
		"git p{u,}sh", "sudo -u x git push -f", "git -c a=b push", "echo push", "git status push", "GIT_DIR=x git push",
		`eval "$X"`, "bash ./run.sh", "env -S 'git push'", "git pushx", "git Push", "sudo -- git push", "git push\\ x"}
	seps := []string{" && ", " | ", "; ", " || ", "\n"}
	modes := []string{"default", "acceptEdits", "bypassPermissions", "dontAsk", "plan"}
	rng := rand.New(rand.NewPCG(26, 6))
	n := 50000
	if testing.Short() {
		n = 10000
	}
	counts := map[session.Verdict]int{}
	for done := 0; done < n; {
		var s frontmatter.Settings
		for range 1 + rng.IntN(6) {
			r := rules[rng.IntN(len(rules))]
			switch rng.IntN(3) {
			case 0:
				s.Deny = append(s.Deny, r)
			case 1:
				s.Ask = append(s.Ask, r)
			default:
				s.Allow = append(s.Allow, r)
			}
		}
		s.Mode = modes[rng.IntN(len(modes))]
		opts := session.Options{Cwd: w.Proj, Home: w.Home, ChatFile: filepath.Join(w.Proj, ".vibing/chat/chat.md")}
		fast, _ := session.New(config.DefaultConfig(), s, opts)
		opts.Reference = true
		slow, _ := session.New(config.DefaultConfig(), s, opts)
		for range 40 {
			parts := make([]string, 1+rng.IntN(3))
			for i := range parts {
				parts[i] = frags[rng.IntN(len(frags))]
			}
			line := parts[0]
			for _, p := range parts[1:] {
				line += seps[rng.IntN(len(seps))] + p
			}
			in := map[string]any{"command": line}
			got, want := fast.Decide("Bash", in), slow.Decide("Bash", in)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("Bash %q in %s with deny %q ask %q allow %q:\n fast %+v\n twin %+v",
					line, s.Mode, s.Deny, s.Ask, s.Allow, got, want)
			}
			if strings.HasPrefix(want.Rule, "Bash(") {
				counts[want.Decision]++
			}
			done++
		}
	}
	for k, least := range map[session.Verdict]int{session.Deny: n / 20, session.Ask: n / 20, session.Allow: n / 100} {
		if counts[k] < least {
			t.Fatalf("%d of %d decisions %s by a command rule: the draws miss what the word tests are for (%v)", counts[k], n, k, counts)
		}
	}
	t.Logf("%d lines; by a command rule: %v", n, counts)
}
