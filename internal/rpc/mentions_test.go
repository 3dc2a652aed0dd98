package rpc_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/auditspool"
	"vibing/internal/config"
	"vibing/internal/rpc"
)

// A mention's audit row says whether the chat's engine decided as a resumed
// session and its working directory, so audit --what-if replays it so.
func TestMentionRowsRecordResumedAndCwd(t *testing.T) {
	tests := []struct {
		name    string
		front   []string
		resumed bool
	}{
		{"fresh", nil, false},
		{"resumed", []string{"session_id: abc"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			proj := filepath.Join(dir, "proj")
			if err := os.MkdirAll(proj, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(proj, "README.md"), []byte("x"), 0o644)
			cfg := config.DefaultConfig()
			cfg.AuditPath = filepath.Join(dir, "audit.sqlite")
			h := &rpc.Host{Config: cfg}
			fm := append(append([]string{"---", "vibing.nvim: true"}, tt.front...), "---")
			got, err := h.Handle(context.Background(), "mentions", []any{map[string]any{
				"lines": lines(fm...), "chat": filepath.Join(proj, "chat.md"), "cwd": proj, "text": "see @README.md"}})
			if err != nil {
				t.Fatal(err)
			}
			if m, _ := got.(map[string]any); m["ok"] != true {
				t.Fatalf("mentions = %v", got)
			}
			var rows []auditspool.Entry
			if _, err := auditspool.Import(auditspool.For(cfg.AuditPath), func(es []auditspool.Entry) error { rows = append(rows, es...); return nil }); err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Fatalf("rows = %+v, want one", rows)
			}
			if r := rows[0]; r.Resumed == nil || *r.Resumed != tt.resumed || r.Cwd != proj {
				t.Errorf("row %+v, want resumed %v and cwd %s", r, tt.resumed, proj)
			}
		})
	}
}
