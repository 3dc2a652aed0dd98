package audit

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"
)

// The hash chain. Every write of a row (its insert, and the rewrite that
// gives an ask_pending row its outcome) appends a link to audit_chain in
// the same transaction: the SHA-256 of the previous link's hash and the
// row's fields as stored. The row keeps the hash of its latest link (the
// one the export sends). Verify walks the links in order: a row whose
// fields no longer give its latest link's hash was changed, a link whose
// row is gone was deleted, a row no link names was inserted outside the
// chain, and a link that does not follow the one before it means a row and
// its link were removed (or a link changed). A person who rewrites the
// whole chain from the changed row on is not caught here: the hashes the
// collector received are the check for that.

const chainSchema = `
CREATE TABLE audit_chain (
	seq    INTEGER PRIMARY KEY AUTOINCREMENT,
	row_id INTEGER NOT NULL,
	prev   TEXT NOT NULL,
	hash   TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`

// rowColumns are the fields a link covers, in the order hashed.
const rowColumns = `time_ns, chat, session_id, tool, action, decision, rule, source, reason, call_key, input_sha256, edited,
	resumed, cwd, tool_use_id, mode, layer, via`

// migrateChain creates the chain of a database that has none. Rows already
// there (written by a vibing-agent without the chain) are linked now, in
// the order of their ids, and the database notes how many there were:
// the chain vouches for them only from this moment on.
func migrateChain(tx *sql.Tx) error {
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'audit_chain'").Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.Exec(chainSchema); err != nil {
		return fmt.Errorf("create the hash chain: %w", err)
	}
	rows, err := tx.Query("SELECT id FROM audit ORDER BY id")
	if err != nil {
		return err
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	ctx := context.Background()
	for _, id := range ids {
		if err := link(ctx, tx, id); err != nil {
			return fmt.Errorf("link row %d into the hash chain: %w", id, err)
		}
	}
	_, err = tx.Exec("INSERT OR REPLACE INTO audit_meta (key, value) VALUES ('chain_started_ns', ?), ('chain_sealed_rows', ?)",
		strconv.FormatInt(time.Now().UnixNano(), 10), strconv.Itoa(len(ids)))
	return err
}

// querier is what link and the walk read with: a transaction or a handle.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// link appends the link of row id (as stored now) to the chain, records
// its hash on the row and marks the row not yet exported.
func link(ctx context.Context, tx querier, id int64) error {
	fields, err := rowFields(tx.QueryRowContext(ctx, "SELECT "+rowColumns+" FROM audit WHERE id = ?", id))
	if err != nil {
		return err
	}
	return linkFields(ctx, tx, id, fields)
}

// linkFields is link with the row's fields as stored already read (the
// RETURNING of the write).
func linkFields(ctx context.Context, tx querier, id int64, fields []byte) error {
	var prev string
	err := tx.QueryRowContext(ctx, "SELECT hash FROM audit_chain ORDER BY seq DESC LIMIT 1").Scan(&prev)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	h := chainHash(prev, id, fields)
	if _, err := tx.ExecContext(ctx, "INSERT INTO audit_chain (row_id, prev, hash) VALUES (?, ?, ?)", id, prev, h); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "UPDATE audit SET hash = ?, exported = 0 WHERE id = ?", h, id)
	return err
}

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }

// rowFields reads the columns of rowColumns as one JSON array.
func rowFields(r scanner, extra ...any) ([]byte, error) {
	var (
		ns                                                          int64
		chat, session, tool, action, decision, rule, source, reason string
		key                                                         sql.NullString
		sha                                                         string
		edited                                                      int64
		resumed                                                     sql.NullBool
		cwd, toolUse, mode, layer, via                              string
	)
	dest := append([]any{&ns, &chat, &session, &tool, &action, &decision, &rule, &source, &reason, &key, &sha, &edited,
		&resumed, &cwd, &toolUse, &mode, &layer, &via}, extra...)
	if err := r.Scan(dest...); err != nil {
		return nil, err
	}
	var k, res any
	if key.Valid {
		k = key.String
	}
	if resumed.Valid {
		res = resumed.Bool
	}
	fields := []any{ns, chat, session, tool, action, decision, rule, source, reason, k, sha, edited, res, cwd, toolUse, mode, layer}
	if via != "" {
		fields = append(fields, via) // (a row without it hashes as before the column)
	}
	return json.Marshal(fields)
}

// chainHash is the hash of a link: hex SHA-256 of the previous hash, the
// row's id and its fields.
func chainHash(prev string, id int64, fields []byte) string {
	s := sha256.New()
	fmt.Fprintf(s, "vibing-audit-v1\n%s\n%d\n", prev, id)
	s.Write(fields)
	return hex.EncodeToString(s.Sum(nil))
}

// Problem is one break in the chain.
type Problem struct {
	Row  int64  `json:"row"`  // the row it concerns (the one after a gap, for a removed link)
	What string `json:"what"` // changed, deleted, inserted, gap
	Text string `json:"text"` // one sentence
}

// Verification is what Verify found.
type Verification struct {
	Rows     int       `json:"rows"`
	Links    int       `json:"links"`
	Sealed   int       `json:"sealed"` // rows that predate the chain, linked when it was made
	Since    time.Time `json:"since"`  // when the chain was made
	Problems []Problem `json:"problems"`
}

// OK reports whether the chain holds.
func (v Verification) OK() bool { return len(v.Problems) == 0 }

// Verify walks the chain of links and the rows, and returns every break,
// the first in chain order first.
func (db *DB) Verify(ctx context.Context) (Verification, error) {
	var v Verification
	h, _, release, err := db.use()
	if err != nil {
		return v, err
	}
	defer release()
	tx, err := h.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return v, fmt.Errorf("audit: verify %s: %w", db.path, err)
	}
	defer tx.Rollback()
	wrap := func(err error) (Verification, error) { return v, fmt.Errorf("audit: verify %s: %w", db.path, err) }
	var started, sealed sql.NullString
	_ = tx.QueryRowContext(ctx, "SELECT value FROM audit_meta WHERE key = 'chain_started_ns'").Scan(&started)
	_ = tx.QueryRowContext(ctx, "SELECT value FROM audit_meta WHERE key = 'chain_sealed_rows'").Scan(&sealed)
	if ns, err := strconv.ParseInt(started.String, 10, 64); err == nil {
		v.Since = time.Unix(0, ns)
	}
	v.Sealed, _ = strconv.Atoi(sealed.String)

	type row struct {
		fields []byte
		hash   string
		linked bool
	}
	rows := map[int64]*row{}
	var order []int64
	rs, err := tx.QueryContext(ctx, "SELECT "+rowColumns+", id, hash FROM audit ORDER BY id")
	if err != nil {
		return wrap(err)
	}
	for rs.Next() {
		var id int64
		var hash string
		f, err := rowFields(rs, &id, &hash)
		if err != nil {
			rs.Close()
			return wrap(err)
		}
		rows[id] = &row{fields: f, hash: hash}
		order = append(order, id)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return wrap(err)
	}
	v.Rows = len(order)

	type lnk struct {
		seq, id    int64
		prev, hash string
	}
	var links []lnk
	latest := map[int64]int64{} // row -> seq of its latest link
	ls, err := tx.QueryContext(ctx, "SELECT seq, row_id, prev, hash FROM audit_chain ORDER BY seq")
	if err != nil {
		return wrap(err)
	}
	for ls.Next() {
		var l lnk
		if err := ls.Scan(&l.seq, &l.id, &l.prev, &l.hash); err != nil {
			ls.Close()
			return wrap(err)
		}
		links = append(links, l)
		latest[l.id] = l.seq
	}
	ls.Close()
	if err := ls.Err(); err != nil {
		return wrap(err)
	}
	v.Links = len(links)

	expect, before := "", int64(0)
	for _, l := range links {
		if l.prev != expect {
			v.Problems = append(v.Problems, Problem{Row: l.id, What: "gap", Text: fmt.Sprintf(
				"the chain breaks at write %d (of row %d): the write before it, after write %d, was deleted together with its row, or a link was changed", l.seq, l.id, before)})
		}
		expect, before = l.hash, l.seq
		r := rows[l.id]
		if r != nil {
			r.linked = true
		}
		if latest[l.id] != l.seq {
			continue // an earlier version of a rewritten row: only its place in the chain is checked
		}
		switch {
		case r == nil:
			v.Problems = append(v.Problems, Problem{Row: l.id, What: "deleted", Text: fmt.Sprintf("row %d was deleted", l.id)})
		case chainHash(l.prev, l.id, r.fields) != l.hash || r.hash != l.hash:
			v.Problems = append(v.Problems, Problem{Row: l.id, What: "changed", Text: fmt.Sprintf("row %d was changed after it was written", l.id)})
		}
	}
	for _, id := range order {
		if !rows[id].linked {
			v.Problems = append(v.Problems, Problem{Row: id, What: "inserted", Text: fmt.Sprintf("row %d was inserted outside the chain (not written by vibing-agent)", id)})
		}
	}
	sort.SliceStable(v.Problems, func(i, j int) bool { return v.Problems[i].Row < v.Problems[j].Row })
	return v, nil
}
