package audit_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"vibing/internal/audit"
)

// BenchmarkRecord is one row written and on disk (synchronous FULL): a new
// row, and an asked row rewritten with its outcome.
func BenchmarkRecord(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		b.Run(fmt.Sprintf("rewrite=%v", keyed), func(b *testing.B) {
			db, err := audit.Open(filepath.Join(b.TempDir(), "audit.sqlite"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := audit.Entry{Tool: "Bash", Action: "tool:Bash:npm test", Decision: "allow", Source: "mode"}
				if keyed {
					e.Key, e.Decision = fmt.Sprint("k", i), "ask_pending"
					if err := db.Record(ctx, e); err != nil {
						b.Fatal(err)
					}
					e.Decision = "ask_approved"
				}
				if err := db.Record(ctx, e); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
