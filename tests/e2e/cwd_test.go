package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRealCdThenRelativeRead checks the shell's folder against the real
// CLI: Claude Code's Bash keeps `cd config` for the next call, so
// `cat prod.env` there reads config/prod.env and a deny rule on that file
// must refuse it; its content never reaches the model. The control chat
// without the rule proves the second call really runs in config.
func TestRealCdThenRelativeRead(t *testing.T) {
	t.Parallel()
	const secret = "PROD-SECRET-51c2e8"
	tests := []struct {
		name     string
		fm       string
		reaches  bool
		decision string
	}{
		{"denied", "permissions_deny: [\"Read(config/prod.env)\"]\npermissions_allow: [\"Bash(cd:*)\", \"Bash(cat:*)\"]\n", false, "deny"},
		{"allowed (control)", "permissions_allow: [\"Bash(cd:*)\", \"Bash(cat:*)\"]\n", true, "allow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, tt.fm, "", bash("cd config"), bash("cat prod.env"))
			if err := os.MkdirAll(filepath.Join(w.dir, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			w.write(filepath.Join(w.dir, "config", "prod.env"), secret+"\n")
			res := w.run(nil)
			if res.code != 0 {
				t.Fatalf("exit %d, want 0; stderr %s", res.code, res.stderr)
			}
			if got := w.api.Received(secret); got != tt.reaches {
				t.Errorf("the file's content reached the model = %v, want %v; events %v", got, tt.reaches, res.types())
			}
			d := res.all("decision")
			if len(d) != 2 || d[0].Decision != "allow" || d[1].Decision != tt.decision {
				t.Fatalf("decisions = %+v, want allow then %s", d, tt.decision)
			}
			if tt.decision == "deny" {
				if d[1].Rule != "Read(config/prod.env)" {
					t.Errorf("cat prod.env was denied by %q, want Read(config/prod.env)", d[1].Rule)
				}
				if !w.api.Received(d[1].Reason) {
					t.Errorf("the model never got the denial reason %q", d[1].Reason)
				}
			}
		})
	}
}

// TestRealCdThenRelativeWriteAllowed checks the everyday side: after
// `cd src`, `echo x > out.txt` writes src/out.txt, which Write(src/**)
// allows, so it runs without a question.
func TestRealCdThenRelativeWriteAllowed(t *testing.T) {
	t.Parallel()
	fm := "permissions_allow: [\"Bash(cd:*)\", \"Bash(echo:*)\", \"Write(src/**)\"]\n"
	w := newWorld(t, fm, "", bash("cd src"), bash("echo hello > out.txt"))
	if err := os.MkdirAll(filepath.Join(w.dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := w.run(nil)
	if res.code != 0 {
		t.Fatalf("exit %d, want 0; stderr %s", res.code, res.stderr)
	}
	if d := res.all("decision"); len(d) != 2 || d[0].Decision != "allow" || d[1].Decision != "allow" {
		t.Errorf("decisions = %+v, want allow, allow", d)
	}
	if !w.exists("src/out.txt") || w.exists("out.txt") {
		t.Errorf("src/out.txt exists = %v, out.txt exists = %v; want true, false", w.exists("src/out.txt"), w.exists("out.txt"))
	}
}
