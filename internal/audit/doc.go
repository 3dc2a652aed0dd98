// Package audit is the audit log: every permission decision and approval
// outcome, one row each, in a SQLite database (modernc.org/sqlite, no cgo).
//
// The database runs in WAL mode with a busy timeout, so several vibing-agent
// processes (one per chat turn) can record at the same time without losing
// rows. Chat paths are stored absolute, so a query for a chat finds its rows
// whatever folder the writer ran in. A handle follows the file at its path:
// when that file is removed or replaced while the handle is open (between
// two turns of a live run), the next use opens the path again, creating the
// database if needed, so no row goes into a file nobody will read.
package audit
