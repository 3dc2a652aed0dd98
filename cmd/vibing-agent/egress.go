package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/auditrow"
	"vibing/internal/auditspool"
	"vibing/internal/config"
	"vibing/internal/egress"
	"vibing/internal/session"
)

// egressProxy is the sandbox's way to the network for one CLI start: the
// proxy on a Unix socket in a folder of its own, which the sandbox shows.
type egressProxy struct {
	dir    string
	socket string
	proxy  *egress.Proxy
	// held are the deny rules whose hosts the proxy refuses
	held []string
}

// startEgress starts the proxy deciding by eng's rules; env is the CLI's
// environment (its ANTHROPIC_BASE_URL is the API the proxy lets through).
// Each connection is an audit row in the spool of the audit database.
func startEgress(eng *session.Engine, cfg *config.Config, chat string, env []string,
	ask func(ctx context.Context, host string, port int) egress.Verdict) (*egressProxy, error) {
	api := []string{egress.DefaultAPI}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "ANTHROPIC_BASE_URL="); ok && v != "" {
			api = append(api, v)
		}
	}
	hosts := egress.NewHosts(eng, api, cfg.SandboxHosts)
	dir, err := os.MkdirTemp("", "vibing-egress-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: the network proxy: %w", err)
	}
	sock := filepath.Join(dir, "proxy.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("sandbox: the network proxy: %w", err)
	}
	spool := auditspool.For(cfg.AuditDB())
	p := &egress.Proxy{Decide: hosts.Decide, Ask: ask, CheckAddr: hosts.CheckAddr, Record: func(c egress.Connection) error {
		decision := auditrow.Deny
		if c.Allow {
			decision = auditrow.Allow
		}
		return auditspool.Append(spool, auditspool.Entry{Time: c.Time, Chat: chat, Tool: "Network", Action: c.Action(),
			Decision: string(decision), Rule: c.Rule, Source: "sandbox:" + c.Source, Reason: c.Reason})
	}}
	go func() { _ = p.Serve(l) }()
	return &egressProxy{dir: dir, socket: sock, proxy: p, held: hosts.DenyRules()}, nil
}

// close stops the proxy and removes its socket.
func (e *egressProxy) close() {
	if e == nil {
		return
	}
	_ = e.proxy.Close()
	_ = os.RemoveAll(e.dir)
}
