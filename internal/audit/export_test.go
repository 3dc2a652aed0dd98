package audit_test

import (
	"context"
	"path/filepath"
	"testing"

	"vibing/internal/audit"
)

// The export's bookkeeping: rows wait until marked, oldest first; a row
// rewritten after it was sent (ask_pending getting its outcome) waits
// again; a mark for a version that was rewritten meanwhile does not stick;
// beyond the backlog bound the oldest are skipped, never deleted.
func TestExportMarks(t *testing.T) {
	ctx := context.Background()
	db, err := audit.Open(filepath.Join(t.TempDir(), "audit.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := func(e audit.Entry) {
		t.Helper()
		if err := db.Record(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	status := func(want audit.ExportStatus) {
		t.Helper()
		got, err := db.ExportStatus(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got.OldestPending = want.OldestPending
		if got != want {
			t.Errorf("ExportStatus = %+v, want %+v", got, want)
		}
	}
	rec(audit.Entry{Tool: "Read", Decision: "allow"})
	rec(audit.Entry{Tool: "Bash", Decision: "ask_pending", Key: "r:1"})
	rec(audit.Entry{Tool: "Edit", Decision: "deny"})
	rows, err := db.Pending(ctx, 2, 0)
	if err != nil || len(rows) != 2 || rows[0].Tool != "Read" || rows[1].Tool != "Bash" || rows[0].Hash == "" {
		t.Fatalf("Pending(2) = %+v, %v; want the two oldest with their hashes", rows, err)
	}
	if err := db.MarkExported(ctx, rows); err != nil {
		t.Fatal(err)
	}
	status(audit.ExportStatus{Rows: 3, Exported: 2, Pending: 1})

	rec(audit.Entry{Tool: "Bash", Decision: "ask_approved", Key: "r:1"}) // the outcome replaces the sent pending row
	status(audit.ExportStatus{Rows: 3, Exported: 1, Pending: 2})
	rows, _ = db.Pending(ctx, 10, 0)
	if len(rows) != 2 || rows[0].Decision != "ask_approved" || rows[1].Tool != "Edit" {
		t.Fatalf("Pending = %+v, want the answered Bash, then the Edit", rows)
	}
	stale := rows[0]
	rec(audit.Entry{Tool: "Bash", Decision: "ask_denied", Key: "r:1"}) // rewritten while being sent
	if err := db.MarkExported(ctx, []audit.Row{stale}); err != nil {
		t.Fatal(err)
	}
	status(audit.ExportStatus{Rows: 3, Exported: 1, Pending: 2})

	for i := 0; i < 5; i++ {
		rec(audit.Entry{Tool: "Glob", Decision: "allow"})
	}
	rows, err = db.Pending(ctx, 100, 3) // a backlog of 3: the 4 oldest of 7 are skipped
	if err != nil || len(rows) != 3 {
		t.Fatalf("Pending with a backlog of 3 = %d rows, %v", len(rows), err)
	}
	status(audit.ExportStatus{Rows: 8, Exported: 1, Pending: 3, Skipped: 4})
	if v, err := db.Verify(ctx); err != nil || !v.OK() {
		t.Errorf("the export's marks broke the chain: %+v, %v", v, err)
	}
}
