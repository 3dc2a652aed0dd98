//go:build !lean

package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
	"vibing/internal/matcher"

	"vibing/internal/audit"
	"vibing/internal/changes"
	_ "vibing/internal/claude" // registers the claude backend
	"vibing/internal/config"
	_ "vibing/internal/demo" // registers the demo backend
	"vibing/internal/egress"
	"vibing/internal/frontmatter"
	"vibing/internal/policy"
	"vibing/internal/run"
	"vibing/internal/sandbox"
	"vibing/internal/session"
)

func init() {
	registerFull("run", runRun)
}

const runUsage = `Usage: vibing-agent run --chat FILE [flags]

Runs the chat's agent: reads {"type":"prompt","text":"..."} from stdin,
drives the agent, gates every tool call through the chat's permission
pipeline and writes JSON Lines events to stdout (see docs/protocol.md).
The claude CLI stays alive after a turn's "result": more prompt lines are
later messages of the same session. Exits 0 once stdin closes after a
"result", and 1 after an "error" event. Stdin closing while a turn runs (the
editor is gone), SIGTERM or SIGINT end the run: the turn is cancelled and
the CLI ends with its tools (a second signal kills them at once).

Flags:
`

// runMemoryLimit is the run's soft heap limit. A run's live heap is a few
// MiB, plus one copy of the longest line the agent wrote (up to 8 MiB); the
// limit makes the collector reclaim the garbage of decoding such a line
// before the heap doubles, so the run stays under 30 MB resident.
const runMemoryLimit = 16 << 20

// limitMemory sets runMemoryLimit unless $GOMEMLIMIT says otherwise.
func limitMemory() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(runMemoryLimit)
	}
}

const runExamples = `
Examples:
  vibing-agent run --chat .vibing/chat/chat-20261122-100000.md   # then type {"type":"prompt","text":"list the files"}
  vibing-agent run --chat chat.md --config ~/.local/state/vibing/options.json --write-back
  vibing-agent run --chat chat.md --session-allow 'Bash(npm test:*)' --session-deny WebFetch
`

func runRun(ctx context.Context, args []string, io stdio) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, runUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, runExamples)
	}
	configPath := registerConfigFlag(fs)
	chat := fs.String("chat", "", "the chat `FILE` (Markdown with frontmatter); required")
	cwd := fs.String("cwd", "", "working `DIR` (default: the chat's working_dir, else the current directory)")
	backend := fs.String("backend", "claude", fmt.Sprintf("agent `NAME` (%s)", strings.Join(run.Backends(), ", ")))
	writeBack := fs.Bool("write-back", false, "save always_allow / always_deny answers to the chat's frontmatter")
	var allow, deny multiFlag
	fs.Var(&allow, "session-allow", "a `RULE` granted for this session by an earlier allow_for_session (repeatable)")
	fs.Var(&deny, "session-deny", "a `RULE` refused for this session by an earlier deny_for_session (repeatable)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if *chat == "" || fs.NArg() > 0 {
		fmt.Fprintln(io.err, "vibing-agent run: --chat FILE is required and takes no other arguments")
		fs.Usage()
		return exitUsage
	}
	// A write to a closed stdout must fail with EPIPE, not kill the run with
	// SIGPIPE: the "editor gone" path has to run. (Notify, not Ignore: an
	// ignored signal would stay ignored in the CLI and its tools.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	limitMemory()
	w := run.NewWriter(io.out)
	fail := func(format string, a ...any) int {
		_ = w.Write(run.Output{Type: "error", Message: fmt.Sprintf(format, a...)})
		return exitFail
	}

	ce, err := openChat(*chat, *cwd, *configPath, session.Options{SessionAllow: allow, SessionDeny: deny})
	if err != nil {
		return fail("%v", err)
	}
	cfg, settings, eng, engErr, chatPath, dir := ce.cfg, ce.settings, ce.engine, ce.loadErr, ce.path, ce.engine.Env().Cwd
	bo := run.BackendOptions{ClaudeCmd: cfg.ClaudeCmd}
	var notices []string
	var vanishes func(string) bool // the sandbox's private /tmp
	netAsk := make(chan *run.Permission)
	var sb *sandboxer // nil: no sandbox
	if *backend == "claude" {
		// the CLI runs inside the sandbox derived from the policy when
		// the turn starts (SPEC §14)
		choice, err := sandbox.Choose(cfg.Sandbox)
		if err != nil {
			return fail("%v", err)
		}
		if choice.Use {
			sb = &sandboxer{bwrap: choice.Bwrap, engine: eng, root: ce.root, configPath: *configPath, cfg: cfg, chat: ce.path,
				warn: func(msg string) { fmt.Fprintf(io.err, "vibing-agent run: %s\n", msg) }}
			sb.ask = networkAsker(netAsk)
			bo.Wrap = sb.wrap
			vanishes = func(p string) bool { return sb.view.Vanishes(p) }
			defer sb.cleanup()
		} else {
			notices = append(notices, choice.Notice)
		}
	}
	be, err := run.NewBackend(*backend, bo)
	if err != nil {
		return fail("%v", err)
	}
	rec, closeAudit, err := openAudit(cfg, *configPath, func(msg string) { fmt.Fprintf(io.err, "vibing-agent run: %s\n", msg) })
	if err != nil {
		return fail("audit database: %v", err)
	}
	defer closeAudit()

	turn := run.Turn{SessionID: settings.SessionID, Model: settings.Model, Mode: eng.Mode(),
		Cwd: dir, DisallowedTools: eng.DeniedTools(), ApprovalTimeoutS: cfg.ApprovalTimeoutS}
	if turn.SessionID == "" && settings.ForkOf != "" {
		// a forked chat before its first result: continue the old session
		// under a new id (the result writes it as this chat's session_id)
		turn.SessionID, turn.ForkSession = settings.ForkOf, true
	}
	r := &run.Runner{
		Backend:         be,
		Abort:           abortOf(ctx), // a second signal: a first one ends the run through ctx
		Engine:          run.SessionEngine{Engine: eng},
		Audit:           rec,
		Chat:            chatPath,
		Turn:            turn,
		ApprovalTimeout: time.Duration(cfg.ApprovalTimeoutS) * time.Second,
		Env:             eng.Env(),
		OnTools:         rememberTools,
		IdleTimeout:     time.Duration(cfg.IdleTimeoutS) * time.Second,
		Notices:         notices,
		Vanishes:        vanishes,
		Network:         netAsk,
		// pre-turn copies of the files each turn changes (files_changed)
		Changes: &changes.Store{Dir: changes.ChatDir(ce.root, chatPath), Chat: chatPath},
	}
	if engErr != nil {
		r.Notices = append(r.Notices, fmt.Sprintf("the chat's permissions are invalid, so every tool call is denied: %v", engErr))
	}
	// A later message of the live CLI reads the chat's rules again (the
	// person may have typed /allow in between). The chat now holds the
	// session id the first message wrote, but this process is not a
	// resumed session unless it started as one.
	resumed := eng.Resumed()
	r.Reload = func() (run.Reloaded, error) {
		doc, err := frontmatter.ReadFile(chatPath)
		if err != nil {
			return run.Reloaded{}, err
		}
		st, err := doc.Settings()
		if err != nil {
			return run.Reloaded{}, fmt.Errorf("chat %s: %w", chatPath, err)
		}
		if !resumed {
			st.SessionID = ""
		}
		ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: *configPath, ChatFile: chatPath, Settings: &st, Cwd: *cwd,
			Options: session.Options{SessionAllow: allow, SessionDeny: deny, Resumed: resumed}})
		if err != nil {
			return run.Reloaded{}, err
		}
		if sb != nil {
			// the live CLI's sandbox still holds the rules it held
			ch.Engine.HoldByKernel(sb.held)
		}
		var notes []string
		if ch.LoadErr != nil {
			notes = append(notes, fmt.Sprintf("the chat's permissions are invalid, so every tool call is denied: %v", ch.LoadErr))
		}
		return run.Reloaded{Engine: run.SessionEngine{Engine: ch.Engine}, Notes: notes, Model: st.Model, Mode: ch.Engine.Mode()}, nil
	}
	if *writeBack {
		r.WriteBack = func(list matcher.List, rule string) error {
			key := frontmatter.KeyAllow
			if list == matcher.DenyList {
				key = frontmatter.KeyDeny
			}
			return frontmatter.EditFile(chatPath, func(d *frontmatter.Document) error {
				_, err := d.AddToList(key, rule)
				return err
			})
		}
	}
	if err := r.RunWith(ctx, io.in, w); err != nil {
		return exitFail
	}
	return exitOK
}

// networkAsker asks the runner (Runner.Network) about a connection from
// inside the sandbox to a host no rule names; the run's approval block
// shows it.
func networkAsker(ch chan<- *run.Permission) func(ctx context.Context, host string, port int) egress.Verdict {
	return func(ctx context.Context, host string, port int) egress.Verdict {
		got := make(chan run.Verdict, 1)
		p := run.NetworkPermission(host, port, func(v run.Verdict) {
			select {
			case got <- v:
			default:
			}
		})
		gone := egress.Verdict{Source: "chat", Reason: "the run ended before the person could be asked"}
		select {
		case ch <- p:
		case <-ctx.Done():
			return gone
		}
		select {
		case v := <-got:
			if v.Allow {
				return egress.Verdict{Allow: true, Source: "chat", Reason: "allowed in the chat"}
			}
			msg := v.Message
			if msg == "" {
				msg = "refused in the chat"
			}
			return egress.Verdict{Source: "chat", Reason: msg}
		case <-ctx.Done():
			return gone
		}
	}
}

// openAudit opens the audit database at the configured path, with the
// export to the collector beside it when that is on (SPEC §16): each row
// kicks a pass; closing gives the last pass a short grace.
func openAudit(cfg *config.Config, cfgPath string, warn func(string)) (run.Recorder, func(), error) {
	db, err := audit.Open(cfg.AuditDB())
	if err != nil {
		return nil, nil, err
	}
	e := startExport(cfgPath, func() (*audit.DB, func(), error) { return db, func() {}, nil }, 0, warn)
	if e == nil {
		return auditRecorder{db}, func() { _ = db.Close() }, nil
	}
	return exportingRecorder{auditRecorder{db}, e}, func() { stopExport(e); _ = db.Close() }, nil
}

// auditRecorder writes the runner's audit rows to the database.
type auditRecorder struct{ db *audit.DB }

func (a auditRecorder) Record(ctx context.Context, e run.AuditEntry) error {
	e.Via = "run"
	return a.db.Record(ctx, e)
}
