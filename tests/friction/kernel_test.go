package friction

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/config"
	"vibing/internal/policy"
	"vibing/internal/sandbox"
	"vibing/internal/session"
)

// TestFrictionKernel measures what the sandbox holding the rules changes
// on the everyday corpus: each call is decided in-process with the
// README's example rules (and with Read(.env) as the only deny rule), once
// as without the sandbox and once with the rules the sandbox's view holds
// (session.Engine.HoldByKernel), in default and bypassPermissions mode and
// in a resumed chat (where what would ask is refused). It
// counts the calls that run, that ask, that ask in every mode (a held-back
// deny rule or a line that may change a guarded or code-running file:
// only a one-off answer) and that are refused. Measured and logged; it
// asserts only that holding never lets more through in default mode and
// never refuses more.
func TestFrictionKernel(t *testing.T) {
	for _, corpus := range []string{"everyday.txt", "unseen.txt"} {
		t.Run(corpus, func(t *testing.T) { frictionKernel(t, corpus) })
	}
}

func frictionKernel(t *testing.T, corpus string) {
	calls := loadCorpusFile(t, corpus)
	root := t.TempDir()
	dir, home := filepath.Join(root, "project"), filepath.Join(root, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	project(t, dir, calls)
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	table.WriteString("| rules | mode | sandbox | runs | asks | of them every mode | refused |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, rules := range []struct{ name, deny string }{
		{"README example", `permissions_deny: ["Bash(rm -rf)", "Read(.env)"]`},
		{"Read(.env) only", `permissions_deny: ["Read(.env)"]`},
	} {
		for _, mode := range []string{"default", "bypassPermissions", "default, resumed"} {
			front := strings.Replace(readmeRules, `permissions_deny: ["Bash(rm -rf)", "Read(.env)"]`, rules.deny, 1)
			if m, ok := strings.CutSuffix(mode, ", resumed"); ok {
				// a reopened chat: asks become refusals (resume_ask = deny)
				front = "session_id: s-resumed\n" + strings.Replace(front, "permissions_mode: default", "permissions_mode: "+m, 1)
			} else {
				front = strings.Replace(front, "permissions_mode: default", "permissions_mode: "+mode, 1)
			}
			chat := filepath.Join(root, "chat-"+strings.ReplaceAll(mode, ", ", "-")+".md")
			if err := os.WriteFile(chat, []byte("---\nvibing.nvim: true\n"+front+"---\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			var without, with [4]int
			for _, held := range []bool{false, true} {
				ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: chat, Dir: dir,
					Places: policy.Places{Home: home, Managed: filepath.Join(home, "etc-vibing"), ClaudeManaged: filepath.Join(home, "etc-cc"),
						TrustStore: filepath.Join(home, "state/trust.json"), Binary: "/usr/bin/true"}})
				if err != nil || ch.LoadErr != nil {
					t.Fatal(err, ch.LoadErr)
				}
				counts := &without
				if held {
					v := sandbox.Derive(sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: home})
					ch.Engine.HoldByKernel(v.Held)
					counts = &with
				}
				for _, c := range calls {
					d := ch.Engine.Decide(c.tool, c.input(dir))
					switch {
					case d.Decision == session.Allow:
						counts[0]++
					case d.Decision == session.Ask:
						counts[1]++
						if d.NoAlways && d.NoSession {
							counts[2]++
						}
					default:
						counts[3]++
					}
				}
			}
			for i, c := range [][4]int{without, with} {
				fmt.Fprintf(&table, "| %s | %s | %s | %d | %d | %d | %d |\n", rules.name, mode, []string{"off", "holds its rules"}[i], c[0], c[1], c[2], c[3])
			}
			if with[3] > without[3] || mode != "bypassPermissions" && with[0] != without[0] {
				t.Errorf("%s, %s: holding the rules changed runs %d -> %d, refusals %d -> %d", rules.name, mode, without[0], with[0], without[3], with[3])
			}
		}
	}
	t.Logf("%d calls of testdata/%s:\n%s", len(calls), corpus, table.String())
}
