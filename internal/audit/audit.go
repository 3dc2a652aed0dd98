package audit

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Decisions recorded in the log.
const (
	DecisionAllow       = "allow"
	DecisionDeny        = "deny"
	DecisionAskApproved = "ask_approved"
	DecisionAskDenied   = "ask_denied"
	DecisionAskTimeout  = "ask_timeout"
	// DecisionAskPending marks a call being asked: the row is written when
	// the approval is asked and rewritten with the outcome (same Key) when it
	// is resolved, so a run killed meanwhile leaves a trace of the call.
	DecisionAskPending = "ask_pending"
	// Decisions of `vibing-agent hook`, which never learns the outcome of
	// what it hands back to Claude Code: "ask_cli" went to the CLI's own
	// prompt, "defer" left the call to the CLI's own rules and mode.
	DecisionAskCLI = "ask_cli"
	DecisionDefer  = "defer"
)

// ErrDecision is wrapped when an entry's decision is not one of the five.
var ErrDecision = errors.New("audit: unknown decision")

// Entry is one audit row.
type Entry struct {
	Time      time.Time `json:"time"`
	Chat      string    `json:"chat"`
	SessionID string    `json:"session_id"`
	Tool      string    `json:"tool"`
	Action    string    `json:"action"`
	Decision  string    `json:"decision"` // allow, deny, ask_approved, ask_denied, ask_timeout
	Rule      string    `json:"rule"`
	Source    string    `json:"source"`
	Reason    string    `json:"reason"`
	// Key names one tool call of one run. A second Record with the same Key
	// rewrites that call's row (an ask_pending row gets its outcome) instead
	// of adding one; an empty Key always adds a row.
	Key string `json:"-"`
	// InputSHA256 is the hex SHA-256 of the input an answered approval was
	// about (what ran, when approved); "" for calls nobody was asked about.
	InputSHA256 string `json:"input_sha256,omitempty"`
	Edited      bool   `json:"edited,omitempty"` // the person edited the input before approving it
}

// Options tune how long a write waits for a busy database.
type Options struct {
	// BusyTimeout is SQLite's own wait for a lock; default 5 s.
	BusyTimeout time.Duration
	// RetryFor is how long a busy or locked write is tried again after
	// that; default 15 s.
	RetryFor time.Duration
}

// Query selects entries: those of one chat (empty: every chat), recorded at
// or after Since (zero: any time), at most Limit (0 or less: all).
type Query struct {
	Chat  string
	Since time.Time
	Limit int
}

// DB is an open audit database. It is safe for concurrent use.
type DB struct {
	db    *sql.DB
	path  string
	retry time.Duration
}

const schema = `
CREATE TABLE IF NOT EXISTS audit (
	id         INTEGER PRIMARY KEY AUTOINCREMENT,
	time_ns    INTEGER NOT NULL, -- Unix time in nanoseconds, UTC
	chat       TEXT NOT NULL DEFAULT '',
	session_id TEXT NOT NULL DEFAULT '',
	tool       TEXT NOT NULL DEFAULT '',
	action     TEXT NOT NULL DEFAULT '',
	decision   TEXT NOT NULL,
	rule       TEXT NOT NULL DEFAULT '',
	source     TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS audit_time ON audit (time_ns);
CREATE INDEX IF NOT EXISTS audit_chat_time ON audit (chat, time_ns);
`

// callKeySchema adds the call key of rewritable rows (databases made before
// it lack the column).
const callKeySchema = `
ALTER TABLE audit ADD COLUMN call_key TEXT;
CREATE UNIQUE INDEX IF NOT EXISTS audit_call_key ON audit (call_key) WHERE call_key IS NOT NULL;
`

// Open opens (creating if needed) the audit database at path. Missing parent
// folders are created with mode 0700.
func Open(path string) (*DB, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with options.
func OpenWith(path string, o Options) (*DB, error) {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.RetryFor <= 0 {
		o.RetryFor = 15 * time.Second
	}
	if path == "" {
		return nil, errors.New("audit: no database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("audit: cannot create the folder for %s: %w", abs, err)
	}
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return nil, fmt.Errorf("audit: %s is a folder, not a database file", abs)
	}
	// busy_timeout first: switching to WAL needs a lock another process may
	// hold. synchronous FULL: a row is on disk when Record returns (a call
	// runs only after its row is), not only after the next checkpoint.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", o.BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("audit: open %s: %w", abs, err)
	}
	err = retryBusy(context.Background(), o.RetryFor, func() error {
		tx, err := db.Begin() // BEGIN IMMEDIATE (_txlock): wait for the write lock up front
		if err != nil {
			return err
		}
		if err := migrate(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("audit: cannot use %s as the audit database: %w", abs, err)
	}
	return &DB{db: db, path: abs, retry: o.RetryFor}, nil
}

// columns added after the first schema, each with its definition: a
// database made by an older vibing-agent gains them when it is opened.
var columns = []struct{ name, def string }{
	{"input_sha256", "TEXT NOT NULL DEFAULT ''"},
	{"edited", "INTEGER NOT NULL DEFAULT 0"},
}

// migrate creates the table, or adds what an older one lacks.
func migrate(tx *sql.Tx) error {
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	rows, err := tx.Query("SELECT name FROM pragma_table_info('audit')")
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		have[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if !have["call_key"] {
		if _, err := tx.Exec(callKeySchema); err != nil {
			return fmt.Errorf("add column call_key: %w", err)
		}
	}
	for _, c := range columns {
		if !have[c.name] {
			if _, err := tx.Exec("ALTER TABLE audit ADD COLUMN " + c.name + " " + c.def); err != nil {
				return fmt.Errorf("add column %s: %w", c.name, err)
			}
		}
	}
	return nil
}

// retryBusy runs fn again while SQLite reports the database busy or locked
// in a way its busy timeout does not cover (switching to WAL, a stale read
// snapshot), for up to about d.
func retryBusy(ctx context.Context, d time.Duration, fn func() error) error {
	deadline := time.Now().Add(d)
	for wait := 5 * time.Millisecond; ; {
		err := fn()
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait + time.Duration(time.Now().UnixNano()%int64(wait))):
		}
		if wait < 200*time.Millisecond {
			wait *= 2
		}
	}
}

func isBusy(err error) bool {
	var coded interface{ Code() int }
	if errors.As(err, &coded) {
		c := coded.Code() & 0xff
		return c == sqliteBusy || c == sqliteLocked
	}
	return false
}

// SQLite primary result codes.
const (
	sqliteBusy   = 5
	sqliteLocked = 6
)

// Path is the absolute path of the database file.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error { return db.db.Close() }

// ValidDecision reports whether d is one of the recorded decisions.
func ValidDecision(d string) bool {
	switch d {
	case DecisionAllow, DecisionDeny, DecisionAskApproved, DecisionAskDenied, DecisionAskTimeout, DecisionAskPending,
		DecisionAskCLI, DecisionDefer:
		return true
	}
	return false
}

// AbsChat makes a chat path absolute, the form rows store and queries use.
func AbsChat(chat string) string {
	if chat == "" {
		return ""
	}
	if abs, err := filepath.Abs(chat); err == nil {
		return abs
	}
	return chat
}

// Record adds one entry, or rewrites the row of the same Key. A zero Time
// means now. It returns once the row is on disk.
func (db *DB) Record(ctx context.Context, e Entry) error {
	if !ValidDecision(e.Decision) {
		return fmt.Errorf("%w %q (want allow, deny, ask_approved, ask_denied, ask_timeout, ask_pending, ask_cli or defer)", ErrDecision, e.Decision)
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	var key any
	if e.Key != "" {
		key = e.Key
	}
	err := retryBusy(ctx, db.retry, func() error {
		tx, err := db.db.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		if key != nil {
			res, err := tx.ExecContext(ctx,
				`UPDATE audit SET time_ns = ?, session_id = ?, tool = ?, action = ?, decision = ?, rule = ?, source = ?, reason = ?,
				 input_sha256 = ?, edited = ? WHERE call_key = ?`,
				e.Time.UnixNano(), e.SessionID, e.Tool, e.Action, e.Decision, e.Rule, e.Source, e.Reason, e.InputSHA256, e.Edited, key)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err == nil && n > 0 {
				return tx.Commit()
			}
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO audit (time_ns, chat, session_id, tool, action, decision, rule, source, reason, call_key, input_sha256, edited)
			 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Time.UnixNano(), AbsChat(e.Chat), e.SessionID, e.Tool, e.Action, e.Decision, e.Rule, e.Source, e.Reason, key, e.InputSHA256, e.Edited)
		if err != nil {
			return err
		}
		return tx.Commit()
	})
	if err != nil {
		return fmt.Errorf("audit: record in %s: %w", db.path, err)
	}
	return nil
}

// Query returns the matching entries, newest first.
func (db *DB) Query(ctx context.Context, q Query) ([]Entry, error) {
	var where []string
	var args []any
	if q.Chat != "" {
		where = append(where, "chat = ?")
		args = append(args, AbsChat(q.Chat))
	}
	if !q.Since.IsZero() {
		where = append(where, "time_ns >= ?")
		args = append(args, q.Since.UnixNano())
	}
	stmt := "SELECT time_ns, chat, session_id, tool, action, decision, rule, source, reason, input_sha256, edited FROM audit"
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	stmt += " ORDER BY time_ns DESC, id DESC"
	if q.Limit > 0 {
		stmt += " LIMIT ?"
		args = append(args, q.Limit)
	}
	rows, err := db.db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var e Entry
		var ns int64
		if err := rows.Scan(&ns, &e.Chat, &e.SessionID, &e.Tool, &e.Action, &e.Decision, &e.Rule, &e.Source, &e.Reason, &e.InputSHA256, &e.Edited); err != nil {
			return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
		}
		e.Time = time.Unix(0, ns)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
	}
	return out, nil
}
