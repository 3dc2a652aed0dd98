//go:build !lean

package main

import (
	"context"
	"fmt"
	"path/filepath"

	"vibing/internal/audit"
	"vibing/internal/auditspool"
)

// importHookSpool moves the rows `vibing-agent hook` spooled beside the
// database into it, so every reader of the log sees them.
func importHookSpool(ctx context.Context, db *audit.DB) error {
	_, err := auditspool.Import(auditspool.For(db.Path()), func(es []auditspool.Entry) error {
		for _, e := range es {
			err := db.Record(ctx, audit.Entry{Time: e.Time, Chat: e.Chat, SessionID: e.SessionID, Tool: e.Tool,
				Action: e.Action, Decision: e.Decision, Rule: e.Rule, Source: e.Source, Reason: e.Reason,
				Resumed: e.Resumed, Cwd: e.Cwd, Via: e.Via})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("hook rows: %w", err)
	}
	return nil
}

// hasHookSpool reports whether the hook spooled rows for the database at db.
func hasHookSpool(db string) bool {
	m, _ := filepath.Glob(auditspool.For(db) + "*")
	return len(m) > 0
}
