package audit

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// The export's bookkeeping. A row is exported once a collector accepted
// it (exported = 1); a rewrite (ask_pending getting its outcome) clears
// the mark so the outcome is sent too. Rows beyond the backlog bound, the
// oldest of a backlog longer than it, are marked skipped (exported = 2):
// they stay in the database, only the collector never gets them.

// Export marks of a row.
const (
	exportPending = 0
	exportDone    = 1
	exportSkipped = 2
)

// Row is an entry with its id and its hash in the chain.
type Row struct {
	ID   int64
	Hash string
	Entry
}

// Pending returns up to limit rows not yet exported, oldest first. Before
// that, when more than backlog rows wait, the oldest beyond the newest
// backlog are marked skipped.
func (db *DB) Pending(ctx context.Context, limit, backlog int) ([]Row, error) {
	h, _, release, err := db.use()
	if err != nil {
		return nil, err
	}
	defer release()
	if backlog > 0 {
		err := retryBusy(ctx, db.opts.RetryFor, func() error {
			_, err := h.ExecContext(ctx, `UPDATE audit SET exported = ? WHERE exported = ? AND id < (
				SELECT id FROM audit WHERE exported = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
				exportSkipped, exportPending, exportPending, backlog-1)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("audit: bound the export backlog of %s: %w", db.path, err)
		}
	}
	rows, err := h.QueryContext(ctx, `SELECT id, hash, time_ns, chat, session_id, tool, action, decision, rule, source, reason,
		input_sha256, edited, resumed, cwd, tool_use_id, mode, layer, via FROM audit WHERE exported = ? ORDER BY id LIMIT ?`, exportPending, limit)
	if err != nil {
		return nil, fmt.Errorf("audit: pending rows of %s: %w", db.path, err)
	}
	defer rows.Close()
	var out []Row
	for rows.Next() {
		var r Row
		var ns int64
		var resumed sql.NullBool
		if err := rows.Scan(&r.ID, &r.Hash, &ns, &r.Chat, &r.SessionID, &r.Tool, &r.Action, &r.Decision, &r.Rule, &r.Source, &r.Reason,
			&r.InputSHA256, &r.Edited, &resumed, &r.Cwd, &r.ToolUseID, &r.Mode, &r.Layer, &r.Via); err != nil {
			return nil, fmt.Errorf("audit: pending rows of %s: %w", db.path, err)
		}
		if resumed.Valid {
			r.Resumed = &resumed.Bool
		}
		r.Time = time.Unix(0, ns)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: pending rows of %s: %w", db.path, err)
	}
	return out, nil
}

// MarkExported marks the rows a collector accepted. A row rewritten since
// it was read (its hash changed) stays pending: its new version is sent.
func (db *DB) MarkExported(ctx context.Context, rows []Row) error {
	h, _, release, err := db.use()
	if err != nil {
		return err
	}
	defer release()
	err = retryBusy(ctx, db.opts.RetryFor, func() error {
		tx, err := h.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		for _, r := range rows {
			if _, err := tx.ExecContext(ctx, "UPDATE audit SET exported = ? WHERE id = ? AND hash = ?", exportDone, r.ID, r.Hash); err != nil {
				return err
			}
		}
		return tx.Commit()
	})
	if err != nil {
		return fmt.Errorf("audit: mark rows exported in %s: %w", db.path, err)
	}
	return nil
}

// ExportStatus says how far the export is behind.
type ExportStatus struct {
	Rows          int       `json:"rows"`
	Exported      int       `json:"exported"`
	Pending       int       `json:"pending"`
	Skipped       int       `json:"skipped"`        // beyond the backlog bound: kept here, never sent
	OldestPending time.Time `json:"oldest_pending"` // zero when none
}

// ExportStatus counts the rows by export mark.
func (db *DB) ExportStatus(ctx context.Context) (ExportStatus, error) {
	var s ExportStatus
	h, _, release, err := db.use()
	if err != nil {
		return s, err
	}
	defer release()
	var oldest sql.NullInt64
	err = h.QueryRowContext(ctx, `SELECT count(*), coalesce(sum(exported = 1), 0), coalesce(sum(exported = 0), 0), coalesce(sum(exported = 2), 0),
		min(CASE WHEN exported = 0 THEN time_ns END) FROM audit`).Scan(&s.Rows, &s.Exported, &s.Pending, &s.Skipped, &oldest)
	if err != nil {
		return s, fmt.Errorf("audit: export status of %s: %w", db.path, err)
	}
	if oldest.Valid {
		s.OldestPending = time.Unix(0, oldest.Int64)
	}
	return s, nil
}
