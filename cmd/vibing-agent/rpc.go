//go:build !lean

package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"time"

	"vibing/internal/audit"
	"vibing/internal/rpc"
)

func init() {
	registerFull("rpc", runRPC)
}

func runRPC(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("rpc", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprintln(io.err, `Usage: vibing-agent rpc [--config FILE]

Serves the Neovim plugin over msgpack-RPC on stdin/stdout. The plugin starts it
with jobstart({...}, {rpc = true}); it is not meant to be run by hand.

Methods (each takes one map): info, version, validate_rule {rule},
check_command {command}, settings {lines}, edit {lines, op, list, rules, value},
explain {lines, chat, cwd}, audit {chat, since, limit}.

Examples:
  vibing-agent rpc --config ~/.local/state/vibing/config.json`)
		fs.PrintDefaults()
	}
	cfgPath := registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "vibing-agent rpc: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	learnTools()
	cfg, err := loadConfig(*cfgPath)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent rpc: %v\n", err)
		return exitFail
	}
	logger := log.New(io.err, "vibing-agent rpc: ", log.LstdFlags)
	h := &rpc.Host{Config: cfg, ConfigFile: *cfgPath, Audit: auditFunc(cfg), Logf: logger.Printf}
	// the editor's export: the rows of its runs' and of the hook's (the
	// spool), every few seconds while rows wait (SPEC §16)
	exp := startExport(*cfgPath, func() (*audit.DB, func(), error) {
		db, err := audit.Open(cfg.AuditDB())
		if err != nil {
			return nil, nil, err
		}
		return db, func() { _ = db.Close() }, nil
	}, 5*time.Second, func(msg string) { logger.Print(msg) })
	defer stopExport(exp)
	if err := h.Serve(ctx, io.in, io.out, os.Stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(io.err, "vibing-agent rpc: %v\n", err)
		return exitFail
	}
	return exitOK
}
