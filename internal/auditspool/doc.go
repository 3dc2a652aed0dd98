// Package auditspool is the audit log's inbox for short-lived writers.
//
// `vibing-agent hook` runs once per tool call of every Claude Code session,
// so it must not pay for opening SQLite. It appends one JSON line per
// decision to a spool file beside the audit database instead; every reader
// of the log (`vibing-agent audit`, the editor's audit view, `run`) first
// imports the spool into the database and removes what it imported.
//
// Appends and the importer's hand-over are serialised with flock(2) on the
// spool file: the importer renames the spool away while holding the lock,
// and a writer that got the lock checks that its open file is still the one
// at the spool path (else it reopens), so no line lands in a file that was
// already imported. A writer killed mid-line leaves a torn line: the next
// row starts a line of its own, and the import takes every whole row and
// names the torn lines, keeping their file. This package imports no
// database driver.
package auditspool
