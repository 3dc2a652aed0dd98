//go:build !lean

package main

import (
	"context"
	"time"

	"vibing/internal/audit"
	"vibing/internal/config"
	"vibing/internal/rpc"
)

// auditFunc connects the RPC host to the audit database. The database is
// opened per query so an idle editor holds no file open.
func auditFunc(cfg *config.Config) rpc.AuditFunc {
	return func(ctx context.Context, q rpc.AuditQuery) ([]map[string]any, error) {
		db, err := audit.Open(cfg.AuditDB())
		if err != nil {
			return nil, err
		}
		defer db.Close()
		if err := importHookSpool(ctx, db); err != nil {
			return nil, err
		}
		aq := audit.Query{Chat: q.Chat, Limit: q.Limit}
		if q.Since > 0 {
			aq.Since = time.Now().Add(-q.Since)
		}
		entries, err := db.Query(ctx, aq)
		if err != nil {
			return nil, err
		}
		rows := make([]map[string]any, 0, len(entries))
		for _, e := range entries {
			rows = append(rows, map[string]any{
				"time":       e.Time.Local().Format("2006-01-02 15:04:05"),
				"chat":       e.Chat,
				"session_id": e.SessionID,
				"tool":       e.Tool,
				"action":     e.Action,
				"decision":   e.Decision,
				"rule":       e.Rule,
				"source":     e.Source,
				"via":        e.Via,
				"reason":     e.Reason,
			})
		}
		return rows, nil
	}
}
