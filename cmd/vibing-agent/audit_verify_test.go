package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/audit"
	"vibing/internal/testdeps"
)

// `vibing-agent audit verify` on a database a person edited with sqlite3:
// it names the row and exits 1; on one vibing wrote alone it exits 0.
func TestAuditVerifyCommand(t *testing.T) {
	sqlite, err := exec.LookPath("sqlite3")
	if err != nil {
		testdeps.Missing(t, "the sqlite3 command line is not installed")
	}
	bin := sharedAgent(t)
	tests := []struct {
		name string
		edit string
		code int
		want string
	}{
		{"untouched", "", 0, "The audit chain holds: 3 rows, 3 writes linked"},
		{"edited", "UPDATE audit SET decision = 'allow' WHERE id = 2", 1, "row 2 was changed after it was written"},
		{"deleted", "DELETE FROM audit WHERE id = 2", 1, "row 2 was deleted"},
		{"inserted", "INSERT INTO audit (time_ns, tool, decision) VALUES (1, 'Bash', 'allow')", 1, "row 4 was inserted outside the chain"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dbPath := filepath.Join(dir, "audit.sqlite")
			cfg := filepath.Join(dir, "vibing.json")
			if err := os.WriteFile(cfg, []byte(`{"audit_path": "`+dbPath+`"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			db, err := audit.Open(dbPath)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range []string{"allow", "deny", "ask_approved"} {
				if err := db.Record(context.Background(), audit.Entry{Tool: "Bash", Action: "tool:Bash:ls", Decision: d}); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			if tt.edit != "" {
				if out, err := exec.Command(sqlite, dbPath, tt.edit).CombinedOutput(); err != nil {
					t.Fatalf("sqlite3: %v\n%s", err, out)
				}
			}
			out, errOut, code := runAgent(t, bin, dir, nil, "audit", "verify", "--config", cfg)
			if code != tt.code || !strings.Contains(out, tt.want) {
				t.Errorf("audit verify: exit %d, stdout %q, stderr %q; want exit %d and %q", code, out, errOut, tt.code, tt.want)
			}
		})
	}
}
