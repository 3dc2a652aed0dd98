package main

import (
	"vibing/internal/config"
	"vibing/internal/rpc"
)

// auditFunc connects the RPC host to the audit database. It is nil until the
// audit package is wired in; the host then says the log is unavailable.
func auditFunc(cfg *config.Config) rpc.AuditFunc {
	_ = cfg
	return nil
}
