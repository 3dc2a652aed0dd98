//go:build !lean

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"vibing/internal/audit"
	"vibing/internal/auditexport"
	"vibing/internal/policy"
)

// exportPlaces is where the managed layer is read from for the export (a
// variable: tests point it at a folder of their own).
var exportPlaces = policy.Places{}

// exportSettings resolves the audit export from the managed policy and
// the environment (SPEC §16).
func exportSettings() (auditexport.Settings, error) {
	m, err := policy.ManagedExport(exportPlaces)
	if err != nil {
		return auditexport.Settings{}, fmt.Errorf("audit export: %w", err)
	}
	return auditexport.Resolve(auditexport.Managed{Endpoint: m.Endpoint, Protocol: m.Protocol, Inputs: m.Inputs, InputsSet: m.InputsSet, File: m.File},
		os.Getenv("VIBING_AUDIT_EXPORT_INPUTS") == "1", os.Getenv)
}

// startExport starts the export loop beside a process that records rows,
// or returns nil when the export is off. open gives the database for one
// pass and its release. A problem is reported through warn, never to the
// decisions: the rows wait in SQLite.
func startExport(open func() (*audit.DB, func(), error), idle time.Duration, warn func(string)) *auditexport.Loop {
	s, err := exportSettings()
	if err != nil {
		warn(err.Error() + "; the rows stay in the audit database until it is fixed")
		return nil
	}
	if !s.On {
		return nil
	}
	x, err := auditexport.New(context.Background(), s)
	if err != nil {
		warn(err.Error() + "; the rows stay in the audit database until it is fixed")
		return nil
	}
	warned := false
	return auditexport.Start(func(ctx context.Context) (int, error) {
		db, release, err := open()
		if err != nil {
			return 0, err
		}
		defer release()
		if err := importHookSpool(ctx, db); err != nil {
			warn(err.Error())
		}
		n, err := auditexport.Drain(ctx, db, x)
		if err != nil && !warned {
			warned = true
			warn(err.Error() + "; the rows wait in the audit database and are sent when it answers")
		}
		return n, err
	}, idle)
}

// stopExport ends the loop: a last pass of up to a second when the
// collector answered the last one, none when it is away (the rows wait
// for the next process).
func stopExport(l *auditexport.Loop) {
	if l == nil {
		return
	}
	grace := time.Second
	if l.Err() != nil {
		grace = 0
	}
	l.Stop(grace)
}

// exportingRecorder kicks the export after each row.
type exportingRecorder struct {
	auditRecorder
	loop *auditexport.Loop
}

func (r exportingRecorder) Record(ctx context.Context, e audit.Entry) error {
	err := r.auditRecorder.Record(ctx, e)
	if err == nil {
		r.loop.Kick()
	}
	return err
}

const auditVerifyUsage = `Usage: vibing-agent audit verify [--json] [--config FILE]

Walks the hash chain of the audit database: every write of a row links the
SHA-256 of its fields to the write before it. Prints the first row that was
changed, deleted or inserted outside vibing-agent, and exits 1 when there is
one; exits 0 when the chain holds. Rows from before the chain (a database of
an older vibing-agent) are linked when it is first opened and vouched for
from then on.
`

// runAuditVerify is `vibing-agent audit verify`.
func runAuditVerify(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() { fmt.Fprint(io.err, auditVerifyUsage) }
	asJSON := fs.Bool("json", false, "print the result as JSON")
	cfgPath := registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	db, code := openAuditFor("audit verify", *cfgPath, io)
	if db == nil {
		return code
	}
	defer db.Close()
	v, err := db.Verify(ctx)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit verify: %v\n", err)
		return exitFail
	}
	if *asJSON {
		_ = json.NewEncoder(io.out).Encode(v)
	} else if v.OK() {
		fmt.Fprintf(io.out, "The audit chain holds: %d rows, %d writes linked (%s).\n", v.Rows, v.Links, db.Path())
		if v.Sealed > 0 {
			fmt.Fprintf(io.out, "%d rows predate the chain: they were linked on %s and are vouched for from then on.\n", v.Sealed, v.Since.Local().Format(time.DateTime))
		}
	} else {
		fmt.Fprintf(io.out, "The audit chain is broken: %s.\n", v.Problems[0].Text)
		if len(v.Problems) > 1 {
			fmt.Fprintf(io.out, "%d more problems after it (--json lists them).\n", len(v.Problems)-1)
		}
	}
	if !v.OK() {
		return exitFail
	}
	return exitOK
}

// runAuditExport is `vibing-agent audit export`: one pass now.
func runAuditExport(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("audit export", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, `Usage: vibing-agent audit export [--config FILE]

Sends the audit rows the collector has not accepted yet (the hook's too),
oldest first, and exits: 0 when none is left waiting, 1 when the collector
could not take them (they wait for the next pass). The editor and run do
this on their own while they run; use it from a timer for terminal-only use.
`)
	}
	cfgPath := registerConfigFlag(fs)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	s, err := exportSettings()
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
		return exitFail
	}
	if !s.On {
		fmt.Fprintln(io.err, "vibing-agent audit export: the export is off (no audit_export_endpoint in the managed policy, no OTEL_LOGS_EXPORTER=otlp with an OTLP endpoint)")
		return exitFail
	}
	db, code := openAuditFor("audit export", *cfgPath, io)
	if db == nil {
		return code
	}
	defer db.Close()
	if err := importHookSpool(ctx, db); err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: warning: %v\n", err)
	}
	x, err := auditexport.New(ctx, s)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
		return exitFail
	}
	defer x.Shutdown(context.Background())
	n, err := auditexport.Drain(ctx, db, x)
	fmt.Fprintf(io.out, "%d rows sent.\n", n)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
		return exitFail
	}
	return exitOK
}

// printExportStatus is `vibing-agent audit --export-status`.
func printExportStatus(ctx context.Context, db *audit.DB, asJSON bool, io stdio) int {
	st, err := db.ExportStatus(ctx)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit: %v\n", err)
		return exitFail
	}
	s, serr := exportSettings()
	if asJSON {
		out := map[string]any{"status": st, "on": s.On, "from": s.From, "endpoint": s.Endpoint, "protocol": s.Protocol, "inputs": s.Inputs}
		if serr != nil {
			out["error"] = serr.Error()
		}
		_ = json.NewEncoder(io.out).Encode(out)
		return exitOK
	}
	switch {
	case serr != nil:
		fmt.Fprintf(io.out, "Export: %v\n", serr)
	case !s.On:
		fmt.Fprintln(io.out, "Export: off")
	default:
		where := s.Endpoint
		if where == "" {
			where = "the OTEL_EXPORTER_OTLP_* endpoint"
		}
		fmt.Fprintf(io.out, "Export: on, %s over %s (set by %s)\n", where, s.Protocol, s.From)
	}
	fmt.Fprintf(io.out, "%d rows: %d exported, %d waiting", st.Rows, st.Exported, st.Pending)
	if !st.OldestPending.IsZero() {
		fmt.Fprintf(io.out, " (the oldest from %s, %s behind)", st.OldestPending.Local().Format(time.DateTime), time.Since(st.OldestPending).Round(time.Second))
	}
	fmt.Fprintf(io.out, ", %d skipped (beyond the backlog of %d)\n", st.Skipped, auditexport.Backlog)
	return exitOK
}

// openAuditFor opens the configured audit database for a subcommand; nil
// and the exit code when it cannot.
func openAuditFor(cmd, cfgPath string, io stdio) (*audit.DB, int) {
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent %s: %v\n", cmd, err)
		return nil, exitFail
	}
	db, err := audit.Open(cfg.AuditDB())
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent %s: %v\n", cmd, err)
		return nil, exitFail
	}
	return db, exitOK
}
