// Package audit is the audit log: every permission decision and approval
// outcome, one row each, in a SQLite database (modernc.org/sqlite, no cgo).
//
// The database runs in WAL mode with a busy timeout, so several vibing-agent
// processes (one per chat turn) can record at the same time without losing
// rows. Chat paths are stored absolute, so a query for a chat finds its rows
// whatever folder the writer ran in.
package audit
