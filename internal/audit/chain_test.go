package audit_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/audit"
	"vibing/internal/testdeps"
)

// sqlite3 runs the sqlite3 command line on the database at path, the way a
// person would edit the file behind vibing's back.
func sqlite3(t *testing.T, path, sql string) {
	t.Helper()
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		testdeps.Missing(t, "the sqlite3 command line is not installed")
	}
	if out, err := exec.Command(bin, path, sql).CombinedOutput(); err != nil {
		t.Fatalf("sqlite3 %q: %v\n%s", sql, err, out)
	}
}

// chainRows writes four rows: two plain, one asked and then answered
// (rewritten under its key), and one more after it.
func chainRows(t *testing.T, db *audit.DB) {
	t.Helper()
	ctx := context.Background()
	at := time.Unix(1700000000, 0)
	for _, e := range []audit.Entry{
		{Time: at, Tool: "Read", Action: "tool:Read:/p/a", Decision: "allow", Source: "mode"},
		{Time: at.Add(time.Second), Tool: "Bash", Action: "tool:Bash:npm test", Decision: "ask_pending", Key: "r1:t2"},
		{Time: at.Add(2 * time.Second), Tool: "Bash", Action: "tool:Bash:rm -rf /", Decision: "deny", Rule: "Bash(rm:*)", Source: "managed"},
		{Time: at.Add(3 * time.Second), Tool: "Bash", Action: "tool:Bash:npm test", Decision: "ask_approved", Key: "r1:t2", InputSHA256: "ab"},
		{Time: at.Add(4 * time.Second), Tool: "Edit", Action: "tool:Edit:/p/b", Decision: "allow", ToolUseID: "toolu_4"},
	} {
		if err := db.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
}

// An edited, a deleted and an inserted row are each named; what vibing
// itself does to the file (rewriting an asked row, marking rows exported,
// migrating an older database) keeps the chain whole.
func TestVerifyChain(t *testing.T) {
	tests := []struct {
		name      string
		edit      string // sqlite3 statements run after the rows are written
		wantRow   int64  // 0: the chain holds
		wantWhat  string
		wantCount int
	}{
		// attacks
		{"a decision edited", "UPDATE audit SET decision = 'allow' WHERE id = 3", 3, "changed", 1},
		{"a reason edited, hash column too", "UPDATE audit SET reason = 'fine', hash = 'x' WHERE id = 1", 1, "changed", 1},
		{"an answered row turned back", "UPDATE audit SET input_sha256 = 'cd' WHERE id = 2", 2, "changed", 1},
		{"a row deleted", "DELETE FROM audit WHERE id = 3", 3, "deleted", 1},
		{"a row and its link deleted", "DELETE FROM audit WHERE id = 3; DELETE FROM audit_chain WHERE row_id = 3", 2, "gap", 1}, // the next write is row 2's answer
		{"a row inserted", "INSERT INTO audit (time_ns, tool, decision) VALUES (1700000001000000000, 'Bash', 'allow')", 5, "inserted", 1},
		{"a row inserted with a past id", "DELETE FROM audit WHERE id = 1; INSERT INTO audit (id, time_ns, tool, decision) VALUES (1, 1, 'Bash', 'allow')", 1, "changed", 1},
		{"the chain emptied", "DELETE FROM audit_chain", 1, "inserted", 4},
		{"two rows swapped in time", "UPDATE audit SET time_ns = time_ns + 10000000000 WHERE id = 1", 1, "changed", 1},
		// everyday
		{"untouched", "", 0, "", 0},
		{"rows marked exported", "UPDATE audit SET exported = 1", 0, "", 0},
		{"read with sqlite3", "SELECT count(*) FROM audit", 0, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.sqlite")
			db, err := audit.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			chainRows(t, db)
			db.Close()
			if tt.edit != "" {
				sqlite3(t, path, tt.edit)
			}
			db, err = audit.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			v, err := db.Verify(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantRow == 0 {
				if !v.OK() || v.Links != 5 {
					t.Fatalf("Verify = %+v, want a whole chain of 5 links", v)
				}
				return
			}
			if v.OK() {
				t.Fatalf("Verify found nothing after %q", tt.edit)
			}
			if p := v.Problems[0]; p.Row != tt.wantRow || p.What != tt.wantWhat || len(v.Problems) != tt.wantCount {
				t.Errorf("Verify = %+v, want first row %d %s and %d problems", v.Problems, tt.wantRow, tt.wantWhat, tt.wantCount)
			}
		})
	}
}

// A database written before the chain gets one when opened: its rows are
// sealed as they are then, and an edit after that is caught.
func TestVerifyMigratedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.sqlite")
	// the schema of a vibing-agent before the chain (and before its later columns)
	sqlite3(t, path, `CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL, chat TEXT NOT NULL DEFAULT '',
		session_id TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '', action TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL,
		rule TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '');
		INSERT INTO audit (time_ns, tool, decision) VALUES (1, 'Read', 'allow'), (2, 'Bash', 'deny'), (3, 'Bash', 'ask_denied');`)
	db, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Record(context.Background(), audit.Entry{Tool: "Edit", Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	v, err := db.Verify(context.Background())
	db.Close()
	if err != nil || !v.OK() || v.Sealed != 3 || v.Rows != 4 || v.Since.IsZero() {
		t.Fatalf("Verify = %+v, %v; want 4 whole rows, 3 sealed at migration", v, err)
	}
	sqlite3(t, path, "UPDATE audit SET decision = 'allow' WHERE id = 2")
	db, err = audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err = db.Verify(context.Background())
	if err != nil || v.OK() || v.Problems[0].Row != 2 || !strings.Contains(v.Problems[0].Text, "row 2 was changed") {
		t.Fatalf("Verify = %+v, %v; want row 2 changed", v, err)
	}
}

// Two handles on one file (as two processes are) writing at once, inserts
// and rewrites mixed: every write is linked in the order SQLite serialised
// them, and the chain holds.
func TestChainHoldsUnderConcurrentWriters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.sqlite")
	done := make(chan error, 2)
	for w := 0; w < 2; w++ {
		go func(w int) {
			db, err := audit.Open(path)
			if err != nil {
				done <- err
				return
			}
			defer db.Close()
			for i := 0; i < 60; i++ {
				key := fmt.Sprintf("w%d:%d", w, i/2) // every second write rewrites the one before
				d := "ask_pending"
				if i%2 == 1 {
					d = "ask_approved"
				}
				if err := db.Record(context.Background(), audit.Entry{Tool: "Bash", Decision: d, Key: key}); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}(w)
	}
	for i := 0; i < 2; i++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	db, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v, err := db.Verify(context.Background())
	if err != nil || !v.OK() || v.Rows != 60 || v.Links != 120 {
		t.Fatalf("Verify = %+v, %v; want 60 rows, 120 links, no break", v, err)
	}
}
