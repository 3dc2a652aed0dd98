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
	"sync"
	"syscall"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"vibing/internal/auditrow"
)

// Decisions recorded in the log: the outcomes of internal/auditrow, under
// the names this package's callers know.
const (
	DecisionAllow       = string(auditrow.Allow)
	DecisionDeny        = string(auditrow.Deny)
	DecisionAskApproved = string(auditrow.AskApproved)
	DecisionAskDenied   = string(auditrow.AskDenied)
	DecisionAskTimeout  = string(auditrow.AskTimeout)
	DecisionAskPending  = string(auditrow.AskPending)
	DecisionAskCLI      = string(auditrow.AskCLI)
	DecisionDefer       = string(auditrow.Defer)
)

// Errors.
var (
	// ErrDecision is wrapped when an entry's decision is not one of those recorded.
	ErrDecision = errors.New("audit: unknown decision")
	// ErrClosed is wrapped when a closed DB is used.
	ErrClosed = errors.New("the audit database is closed")

	errCheckpointBusy = errors.New("another process is reading the log")
)

// Entry is one audit row (internal/auditrow).
type Entry = auditrow.Entry

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
//
// A DB keeps writing to the file at its path: a person may delete or
// replace that file while a long run holds it open, and a row written to
// the unlinked file would be lost with it. Each use first checks that the
// file at the path is still the one opened (device and inode), and opens
// the path again when it is not; each write checks again once committed.
type DB struct {
	path string
	opts Options

	mu     sync.RWMutex // held for reading while db is used, for writing to swap it
	db     *sql.DB      // nil after opening the path again failed: the next use tries again
	files  opened       // the files db has open
	closed bool
}

// opened are the files of an open database: the database and, beside it,
// its write-ahead log and the log's index (nil when there were none).
type opened struct{ db, wal, shm os.FileInfo }

// The suffixes of a WAL database's log and its index.
var logSuffixes = [...]string{"-wal", "-shm"}

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
	db := &DB{path: abs, opts: o}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("audit: cannot create the folder for %s: %w", abs, err)
	}
	unlock, err := lockFolder(abs, syscall.LOCK_SH)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if db.db, db.files, err = open(abs, o); err != nil {
		return nil, err
	}
	return db, nil
}

// lockFolder takes flock(2) on the folder of the database at abs: shared
// while a database is opened (and maybe created) there, exclusive while a
// handle whose file was replaced removes that file's logs (see reopen).
// unlock releases it.
func lockFolder(abs string, how int) (unlock func(), err error) {
	f, err := os.Open(filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("audit: cannot lock the folder of %s: %w", abs, err)
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: cannot lock the folder of %s: %w", abs, err)
	}
	return func() { f.Close() }, nil
}

// open opens (creating if needed) the database at abs, whose folder exists
// and is locked, and returns the files it opened.
func open(abs string, o Options) (*sql.DB, opened, error) {
	var files opened
	if st, err := os.Stat(abs); err == nil && st.IsDir() {
		return nil, files, fmt.Errorf("audit: %s is a folder, not a database file", abs)
	}
	// busy_timeout first: switching to WAL needs a lock another process may
	// hold. synchronous FULL: a row is on disk when Record returns (a call
	// runs only after its row is), not only after the next checkpoint.
	dsn := "file:" + (&url.URL{Path: abs}).EscapedPath() +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", o.BusyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, files, fmt.Errorf("audit: open %s: %w", abs, err)
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
		return nil, files, fmt.Errorf("audit: cannot use %s as the audit database: %w", abs, err)
	}
	// the files just opened and migrated: a replacement after this is
	// caught by the check before each use
	if files.db, err = os.Stat(abs); err != nil {
		db.Close()
		return nil, files, fmt.Errorf("audit: %s vanished as it was opened: %w", abs, err)
	}
	files.wal, _ = os.Stat(abs + logSuffixes[0])
	files.shm, _ = os.Stat(abs + logSuffixes[1])
	return db, files, nil
}

// columns added after the first schema, each with its definition: a
// database made by an older vibing-agent gains them when it is opened.
var columns = []struct{ name, def string }{
	{"input_sha256", "TEXT NOT NULL DEFAULT ''"},
	{"edited", "INTEGER NOT NULL DEFAULT 0"},
	{"resumed", "INTEGER"}, // NULL: not recorded (an older row)
	{"cwd", "TEXT NOT NULL DEFAULT ''"},
	{"tool_use_id", "TEXT NOT NULL DEFAULT ''"},
	{"mode", "TEXT NOT NULL DEFAULT ''"},
	{"layer", "TEXT NOT NULL DEFAULT ''"},
	// the row's link in the hash chain (chain.go) and whether the export
	// sent it (export.go); neither is one of the row's own fields
	{"hash", "TEXT NOT NULL DEFAULT ''"},
	{"exported", "INTEGER NOT NULL DEFAULT 0"},
	{"via", "TEXT NOT NULL DEFAULT ''"},
}

// viaFromSource moves what older rows wrote as their source (hook,
// mention: who decided, not which rule) to via, once, when via is added.
const viaFromSource = `UPDATE audit SET via = source, source = '' WHERE via = '' AND source IN ('hook', 'mention')`

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
			if c.name == "via" {
				if _, err := tx.Exec(viaFromSource); err != nil {
					return fmt.Errorf("fill column via: %w", err)
				}
			}
		}
	}
	return migrateChain(tx)
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
	if errors.Is(err, errCheckpointBusy) {
		return true
	}
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
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.closed = true
	if db.db == nil {
		return nil
	}
	err := db.db.Close()
	db.db = nil
	return err
}

// atPath reports whether fi is still the file at the database's path.
func (db *DB) atPath(fi os.FileInfo) bool {
	st, err := os.Stat(db.path)
	return err == nil && fi != nil && os.SameFile(fi, st)
}

// use returns the handle of the file at the path, opening the path again
// when that is another file (or none) than the one open. release ends the
// use; file is the database file the handle has open.
func (db *DB) use() (h *sql.DB, file os.FileInfo, release func(), err error) {
	for {
		db.mu.RLock()
		if db.db != nil && db.atPath(db.files.db) {
			return db.db, db.files.db, db.mu.RUnlock, nil
		}
		db.mu.RUnlock()
		db.mu.Lock()
		switch {
		case db.closed:
			err = fmt.Errorf("audit: %s: %w", db.path, ErrClosed)
		case db.db == nil || !db.atPath(db.files.db):
			err = db.reopen()
		}
		db.mu.Unlock()
		if err != nil {
			return nil, nil, nil, err
		}
	}
}

// reopen leaves the file that is no longer at the path and opens the path
// (creating the database when it is gone). It runs with mu held.
//
// The log and its index are named for the path, not for the file: SQLite
// would lay the old file's pages over whatever database is at the path now
// (one renamed there, or the new one), and processes with the old and the
// new file open would share one index. So the old handle's log is first
// checkpointed into the old file and emptied (a log that cannot be emptied,
// because another process is reading it, keeps the old handle and fails
// this use: the next one tries again), and the log and index this handle
// opened are removed from the path if they are still there: whoever has
// them open keeps them, apart from the new database.
func (db *DB) reopen() error {
	if db.db != nil {
		if err := checkpoint(db.db, db.opts.RetryFor); err != nil {
			return fmt.Errorf("audit: %s was removed or replaced since it was opened, and the log of the file it was cannot be emptied: %w", db.path, err)
		}
		_ = db.db.Close() // its rows are on disk: synchronous FULL, and checkpointed
		db.db = nil
	}
	if err := os.MkdirAll(filepath.Dir(db.path), 0o700); err != nil {
		return fmt.Errorf("audit: cannot create the folder for %s: %w", db.path, err)
	}
	unlock, err := lockFolder(db.path, syscall.LOCK_EX)
	if err != nil {
		return err
	}
	defer unlock()
	for i, old := range []os.FileInfo{db.files.wal, db.files.shm} {
		name := db.path + logSuffixes[i]
		if st, err := os.Stat(name); err == nil && old != nil && os.SameFile(old, st) {
			if err := os.Remove(name); err != nil {
				return fmt.Errorf("audit: %s was removed or replaced since it was opened, and its old log cannot be moved out of the way: %w", db.path, err)
			}
		}
	}
	db.files = opened{}
	h, files, err := open(db.path, db.opts)
	if err != nil {
		return fmt.Errorf("%w (the file there was removed or replaced since it was opened)", err)
	}
	db.db, db.files = h, files
	return nil
}

// checkpoint copies the write-ahead log into the database file and empties
// it.
func checkpoint(h *sql.DB, d time.Duration) error {
	return retryBusy(context.Background(), d, func() error {
		var busy, log, done int
		if err := h.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &log, &done); err != nil {
			return err
		}
		if busy != 0 {
			return errCheckpointBusy
		}
		return nil
	})
}

// ValidDecision reports whether d is one of the recorded decisions.
func ValidDecision(d string) bool { return auditrow.Valid(d) }

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
	for moved := 0; ; moved++ {
		h, file, release, err := db.use()
		if err != nil {
			return err
		}
		err = db.record(ctx, h, key, e)
		// replaced while the row was written: it may be in the file that
		// left, so it is written again to the file at the path (a keyed
		// row rewrites itself; another may then stand in both files)
		again := err == nil && !db.atPath(file)
		release()
		if err != nil {
			return fmt.Errorf("audit: record in %s: %w", db.path, err)
		}
		if !again {
			return nil
		}
		if moved == maxMoves {
			return fmt.Errorf("audit: record in %s: the file kept being replaced while the row was written", db.path)
		}
	}
}

// maxMoves bounds how often Record writes a row again because the file was
// replaced meanwhile.
const maxMoves = 3

// record writes e on h in one transaction, with its link in the chain.
func (db *DB) record(ctx context.Context, h *sql.DB, key any, e Entry) error {
	var resumed any // NULL when the writer did not say
	if e.Resumed != nil {
		resumed = *e.Resumed
	}
	return retryBusy(ctx, db.opts.RetryFor, func() error {
		tx, err := h.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		defer tx.Rollback()
		// each write returns the row as stored, which its link covers
		var id int64
		var fields []byte
		if key != nil {
			fields, err = rowFields(tx.QueryRowContext(ctx,
				`UPDATE audit SET time_ns = ?, session_id = ?, tool = ?, action = ?, decision = ?, rule = ?, source = ?, reason = ?,
				 input_sha256 = ?, edited = ?, resumed = ?, cwd = ?, tool_use_id = ?, mode = ?, layer = ?, via = ? WHERE call_key = ?
				 RETURNING `+rowColumns+`, id`,
				e.Time.UnixNano(), e.SessionID, e.Tool, e.Action, e.Decision, e.Rule, e.Source, e.Reason, e.InputSHA256, e.Edited,
				resumed, e.Cwd, e.ToolUseID, e.Mode, e.Layer, e.Via, key), &id)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		if id == 0 {
			fields, err = rowFields(tx.QueryRowContext(ctx,
				`INSERT INTO audit (time_ns, chat, session_id, tool, action, decision, rule, source, reason, call_key, input_sha256, edited,
				 resumed, cwd, tool_use_id, mode, layer, via)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				 RETURNING `+rowColumns+`, id`,
				e.Time.UnixNano(), AbsChat(e.Chat), e.SessionID, e.Tool, e.Action, e.Decision, e.Rule, e.Source, e.Reason, key, e.InputSHA256, e.Edited,
				resumed, e.Cwd, e.ToolUseID, e.Mode, e.Layer, e.Via), &id)
			if err != nil {
				return err
			}
		}
		if err := linkFields(ctx, tx, id, fields); err != nil {
			return err
		}
		return tx.Commit()
	})
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
	stmt := "SELECT time_ns, chat, session_id, tool, action, decision, rule, source, reason, input_sha256, edited, resumed, cwd, tool_use_id, mode, layer, via FROM audit"
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	stmt += " ORDER BY time_ns DESC, id DESC"
	if q.Limit > 0 {
		stmt += " LIMIT ?"
		args = append(args, q.Limit)
	}
	h, _, release, err := db.use()
	if err != nil {
		return nil, err
	}
	defer release()
	rows, err := h.QueryContext(ctx, stmt, args...)
	if err != nil {
		return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
	}
	defer rows.Close()
	out := []Entry{}
	for rows.Next() {
		var e Entry
		var ns int64
		var resumed sql.NullBool
		if err := rows.Scan(&ns, &e.Chat, &e.SessionID, &e.Tool, &e.Action, &e.Decision, &e.Rule, &e.Source, &e.Reason, &e.InputSHA256, &e.Edited,
			&resumed, &e.Cwd, &e.ToolUseID, &e.Mode, &e.Layer, &e.Via); err != nil {
			return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
		}
		if resumed.Valid {
			e.Resumed = &resumed.Bool
		}
		e.Time = time.Unix(0, ns)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: query %s: %w", db.path, err)
	}
	return out, nil
}
