//go:build !lean

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"vibing/internal/audit"
	"vibing/internal/auditexport"
	"vibing/internal/policy"
	"vibing/internal/selfexe"
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

// newSender makes the OTLP sender. It is nil in vibing-agent-full, which
// leaves the OpenTelemetry SDK out (its packages would cost every run and
// rpc start-up time and memory); export_otel.go sets it in the
// vibing-agent-otel build, which the full build starts when the export is
// on.
var newSender func(ctx context.Context, s auditexport.Settings) (auditexport.Sender, func(), error)

// export is the audit export beside a process that records rows.
type export interface {
	Kick()                 // a row was recorded: send soon (never blocks)
	Stop(ok time.Duration) // end within about ok when the collector answers, at once when not
}

// startExport starts the export beside run or rpc, or returns nil when it
// is off: in this process in the otel build, else in a vibing-agent-otel
// child (`audit export --follow`), fed a line per recorded row. idle is
// the pause between passes when no row comes (0: passes only after rows).
// A problem goes to warn, never to the decisions: the rows wait in SQLite.
func startExport(cfgPath string, open func() (*audit.DB, func(), error), idle time.Duration, warn func(string)) export {
	s, err := exportSettings()
	if err != nil {
		warn(err.Error() + "; the rows stay in the audit database until it is fixed")
		return nil
	}
	if !s.On {
		return nil
	}
	if newSender == nil {
		c, err := startChild(cfgPath, idle)
		if err != nil {
			warn(err.Error() + "; the rows stay in the audit database")
			return nil
		}
		return c
	}
	x, shutdown, err := newSender(context.Background(), s)
	if err != nil {
		warn(err.Error() + "; the rows stay in the audit database until it is fixed")
		return nil
	}
	warned := false
	return &loopExport{shutdown: shutdown, Loop: auditexport.Start(func(ctx context.Context) (int, error) {
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
	}, idle)}
}

// loopExport is the export in this process.
type loopExport struct {
	*auditexport.Loop
	shutdown func()
}

func (l *loopExport) Stop(ok time.Duration) {
	if l.Err() != nil {
		ok = 0
	}
	l.Loop.Stop(ok)
	l.shutdown()
}

// childExport is the export in a vibing-agent-otel child.
type childExport struct {
	cmd    *exec.Cmd
	kicks  chan struct{}
	done   chan struct{}
	mu     sync.Mutex // guards closed: a Kick after Stop does nothing
	closed bool
}

// startChild starts `vibing-agent-otel audit export --follow` from this
// program's folder; it dies with this process (Pdeathsig).
func startChild(cfgPath string, idle time.Duration) (*childExport, error) {
	self, err := selfexe.Path()
	if err != nil {
		return nil, fmt.Errorf("audit export: %w", err)
	}
	bin := filepath.Join(filepath.Dir(self), selfexe.Otel)
	args := []string{"audit", "export", "--follow", "--idle", idle.String()}
	if cfgPath != "" {
		args = append(args, "--config", cfgPath)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("audit export: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("audit export: %s could not be started (%v); run make in the plugin's folder to build it", bin, err)
	}
	c := &childExport{cmd: cmd, kicks: make(chan struct{}, 1), done: make(chan struct{})}
	go func() {
		for range c.kicks {
			if _, err := in.Write([]byte("\n")); err != nil {
				break
			}
		}
		in.Close() // end of rows: the child makes its last pass and exits
		for range c.kicks {
		}
	}()
	go func() { _ = cmd.Wait(); close(c.done) }()
	return c, nil
}

func (c *childExport) Kick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	select {
	case c.kicks <- struct{}{}:
	default:
	}
}

// Stop closes the child's input; it makes a last pass (within its own
// grace, none when the collector is away) and exits. A child that has not
// exited a little after that is killed; its rows wait in SQLite.
func (c *childExport) Stop(ok time.Duration) {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		close(c.kicks)
	}
	c.mu.Unlock()
	select {
	case <-c.done:
	case <-time.After(ok):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// stopExport ends the export: a last pass of up to a second when the
// collector answered the last one, none when it is away (the rows wait
// for the next process).
func stopExport(e export) {
	if e != nil {
		e.Stop(time.Second)
	}
}

// exportingRecorder kicks the export after each row.
type exportingRecorder struct {
	auditRecorder
	export export
}

func (r exportingRecorder) Record(ctx context.Context, e audit.Entry) error {
	err := r.auditRecorder.Record(ctx, e)
	if err == nil {
		r.export.Kick()
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

// runAuditExport is `vibing-agent audit export`: one pass now, or with
// --follow a pass after each line on stdin (and every --idle) until stdin
// ends. The full build hands it to vibing-agent-otel.
func runAuditExport(ctx context.Context, args []string, io stdio) int {
	if newSender == nil {
		return forwardOtel(args, io)
	}
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
	follow := fs.Bool("follow", false, "a pass after each line on stdin, until it ends (run and rpc feed it)")
	idle := fs.Duration("idle", 0, "with --follow, a pass this often while no line comes (0: none)")
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
	if *follow {
		e := startExport(*cfgPath, func() (*audit.DB, func(), error) { return db, func() {}, nil }, *idle,
			func(msg string) { fmt.Fprintf(io.err, "vibing-agent: %s\n", msg) })
		if e == nil {
			return exitFail
		}
		sc := bufio.NewScanner(io.in)
		for sc.Scan() {
			e.Kick()
		}
		e.Stop(time.Second)
		return exitOK
	}
	if err := importHookSpool(ctx, db); err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: warning: %v\n", err)
	}
	x, shutdown, err := newSender(ctx, s)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
		return exitFail
	}
	defer shutdown()
	n, err := auditexport.Drain(ctx, db, x)
	fmt.Fprintf(io.out, "%d rows sent.\n", n)
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
		return exitFail
	}
	return exitOK
}

// forwardOtel execs vibing-agent-otel audit export with args; it returns
// only when that fails.
func forwardOtel(args []string, io stdio) int {
	self, err := selfexe.Path()
	if err == nil {
		bin := filepath.Join(filepath.Dir(self), selfexe.Otel)
		err = syscall.Exec(bin, append([]string{bin, "audit", "export"}, args...), os.Environ())
		err = fmt.Errorf("%s could not be started (%v); run make in the plugin's folder to build it", bin, err)
	}
	fmt.Fprintf(io.err, "vibing-agent audit export: %v\n", err)
	return exitFail
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
