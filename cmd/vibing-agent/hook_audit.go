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
			// a spooled row never claims an approval (the spool's writers
			// ask nobody) nor rewrites another row
			e.Key, e.InputSHA256, e.Edited = "", "", false
			if err := db.Record(ctx, e); err != nil {
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
