package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"vibing/internal/auditspool"
	"vibing/internal/claude"
	"vibing/internal/config"
	"vibing/internal/egress"
	"vibing/internal/hook"
	"vibing/internal/policy"
	"vibing/internal/procs"
	"vibing/internal/sandbox"
	"vibing/internal/session"
)

func init() {
	register(subcommand{name: "claude", summary: "run the claude CLI in a terminal inside the sandbox derived from the policy", run: runClaude,
		signals: true}) // Ctrl-C belongs to the CLI in the terminal: it must not end the wrapper
}

// sandboxer starts a command inside the sandbox of a loaded chat (or of
// the policy layers alone): the view is derived when the command starts.
type sandboxer struct {
	bwrap      string
	engine     *session.Engine
	root       string
	configPath string
	cfg        *config.Config
	terminal   bool
	prepared   *sandbox.Prepared
	view       *sandbox.View
	relay      *auditspool.Relay
	egress     *egressProxy
	// ask asks the person about a host no rule names (run's approval
	// block); nil: such a connection is refused
	ask func(ctx context.Context, host string, port int) egress.Verdict
	// held are the deny rules this sandbox holds whole (the view's and
	// the proxy's): the engines of the run decide with them
	// (session.Engine.HoldByKernel)
	held []string
	// chat is the chat file the audit rows of connections name ("" for
	// vibing-agent claude without --chat)
	chat string
	// interactive: a person answers the CLI (vibing-agent claude without -p)
	interactive bool
	// warn tells the person what the sandbox could not keep (stderr)
	warn func(string)
}

// input is what the view is derived from, for the CLI at claudeBin.
func (s *sandboxer) input(claudeBin string) sandbox.Input {
	exe, _ := os.Executable()
	return sandboxInput(s.engine, s.root, s.configPath, s.cfg, claudeBin, exe)
}

func sandboxInput(eng *session.Engine, root, configPath string, cfg *config.Config, claudeBin, exe string) sandbox.Input {
	if configPath != "" {
		if abs, err := filepath.Abs(configPath); err == nil {
			configPath = abs
		}
	}
	return sandbox.Input{Engine: eng, Root: root, Claude: claudeBin, Binary: exe, Config: configPath,
		Writable: cfg.SandboxWritable, EnvAllow: cfg.SandboxEnvAllow, Hosts: cfg.SandboxHosts, HookFiles: hookFiles(root)}
}

// hookFiles are the --config and --chat files of the installed hook
// entries (absolute paths), which a hook inside the sandbox reads.
func hookFiles(project string) []string {
	home, _ := os.UserHomeDir()
	if project == "" {
		project, _ = os.Getwd()
	}
	var out []string
	for _, f := range hook.Installed(hook.Paths{Home: home, Project: project}) {
		for _, p := range f.Entry.Files() {
			if filepath.IsAbs(p) {
				out = append(out, filepath.Clean(p))
			}
		}
	}
	return out
}

// sandboxReport is the sandbox part of explain.
func sandboxReport(eng *session.Engine, root, configPath string, cfg *config.Config) sandbox.Report {
	bin, _ := claude.Find(cfg.ClaudeCmd)
	exe, _ := os.Executable()
	return sandbox.NewReport(cfg.Sandbox, sandboxInput(eng, root, configPath, cfg, bin, exe))
}

// wrap derives the view and puts bwrap in front of cmd.
func (s *sandboxer) wrap(cmd *exec.Cmd) error {
	prog := cmd.Path
	if procs.IsKeeper(cmd) {
		prog = cmd.Args[1] // the keeper's program: the claude CLI
	}
	s.cleanup() // the previous turn's
	relay, err := auditspool.StartRelay(auditspool.For(s.cfg.AuditDB()))
	if err != nil {
		return fmt.Errorf("sandbox: the hook's audit relay: %w", err)
	}
	s.relay = relay
	s.view = sandbox.Derive(s.input(prog))
	eg, err := startEgress(s.engine, s.cfg, s.chat, cmd.Env, s.ask)
	if err != nil {
		s.cleanup()
		return err
	}
	s.egress = eg
	exe, _ := os.Executable()
	p, err := s.view.Prepare(sandbox.Options{Terminal: s.terminal, Show: []string{relay.Dir()},
		Interactive: s.interactive, Warn: s.warn, EnvAllow: s.cfg.SandboxEnvAllow, Egress: eg.socket, Agent: exe})
	if err != nil {
		s.cleanup()
		return err
	}
	s.prepared = p
	s.held = append(append([]string(nil), s.view.Held...), eg.held...)
	s.engine.HoldByKernel(s.held)
	p.Wrap(cmd, s.bwrap)
	// an installed hook inside cannot write the spool (the state folder is
	// read-only in there): it hands its rows to the relay
	cmd.Env = append(cmd.Env, auditspool.RelayEnv+"="+relay.Socket())
	// run's own claude is process 2 in there: an installed hook stands
	// aside for it (hook.InsideRun)
	if !s.terminal {
		cmd.Env = append(cmd.Env, hook.RunEnv+"="+hook.SandboxRun)
	}
	return nil
}

// cleanup removes what the sandbox left on disk and stops the relay,
// once the CLI ended.
func (s *sandboxer) cleanup() {
	if s == nil {
		return
	}
	s.prepared.Cleanup()
	s.prepared = nil
	s.egress.close()
	s.egress = nil
	if s.relay != nil {
		_ = s.relay.Close()
		s.relay = nil
	}
}

const claudeUsage = `Usage: vibing-agent claude [--config FILE] [--chat FILE] [--] [claude arguments...]

Runs the claude CLI ($VIBING_CLAUDE_BIN, else the claude_cmd option, else
claude on PATH) in the current folder inside the sandbox vibing derives from
the policy (bubblewrap; see 'vibing-agent explain'): the current folder and
the CLI's own state writable, guarded files and files that run code by
themselves read-only, files a Read deny rule names hidden, a private /tmp,
no socket of your session ($NVIM, $XDG_RUNTIME_DIR, $SSH_AUTH_SOCK, D-Bus),
no secret-looking variables (sandbox_env_allow lets some in), TIOCSTI
refused, and a network of its own whose only way out is vibing's proxy
(the API, the hosts allow rules name and sandbox_hosts; every connection
an audit row). The terminal is passed through and the CLI's exit
code is returned. The rules come from every policy layer; --chat adds a
chat's lists. With the hook installed (vibing-agent hook install) the
engine decides the calls and the kernel backs it.

The sandbox option applies: "on" refuses to start without bubblewrap,
"auto" warns and starts the CLI without it, "off" starts it without it.
`

const claudeExamples = `
Examples:
  vibing-agent claude
  vibing-agent claude -- -p "run the tests" --model sonnet
  vibing-agent claude --config ~/.local/state/vibing/options.json --continue
`

// printMode reports whether the CLI's arguments ask for one answer
// without a person (-p, --print).
func printMode(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "-p" || a == "--print" || strings.HasPrefix(a, "--print=") {
			return true
		}
	}
	return false
}

// runClaude is vibing-agent claude.
func runClaude(_ context.Context, args []string, io stdio) int {
	var configPath, chat string
flags:
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "-h" || a == "--help":
			fmt.Fprint(io.out, claudeUsage, claudeExamples)
			return exitOK
		case a == "--":
			args = args[1:]
			break flags
		case a == "--config" && len(args) > 1:
			configPath, args = args[1], args[2:]
		case a == "--chat" && len(args) > 1:
			chat, args = args[1], args[2:]
		case strings.HasPrefix(a, "--config="):
			configPath, args = strings.TrimPrefix(a, "--config="), args[1:]
		case strings.HasPrefix(a, "--chat="):
			chat, args = strings.TrimPrefix(a, "--chat="), args[1:]
		default:
			break flags
		}
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(io.err, "vibing-agent claude: "+format+"\n", a...)
		return exitFail
	}
	learnTools()
	cfg, err := loadConfig(configPath)
	if err != nil {
		return fail("%v", err)
	}
	bin, err := claude.Find(cfg.ClaudeCmd)
	if err != nil {
		return fail("%v", err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail("%v", err)
	}
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: configPath, ChatFile: chat, NoChat: chat == "", Dir: wd})
	if err != nil {
		return fail("%v", err)
	}
	if ch.LoadErr != nil {
		fmt.Fprintf(io.err, "vibing-agent claude: %v\n", ch.LoadErr)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = ch.Cwd
	cmd.Env = os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if f, ok := io.in.(*os.File); !ok || f != os.Stdin {
		cmd.Stdin = io.in
	}
	if f, ok := io.out.(*os.File); !ok || f != os.Stdout {
		cmd.Stdout = io.out
	}
	if f, ok := io.err.(*os.File); !ok || f != os.Stderr {
		cmd.Stderr = io.err
	}
	choice, err := sandbox.Choose(cfg.Sandbox)
	if err != nil {
		return fail("%v", err)
	}
	var sb *sandboxer
	if choice.Use {
		sb = &sandboxer{bwrap: choice.Bwrap, engine: ch.Engine, root: ch.Root, configPath: configPath, cfg: cfg, terminal: true, chat: chat,
			interactive: !printMode(args), warn: func(msg string) { fmt.Fprintf(io.err, "vibing-agent claude: %s\n", msg) }}
		if err := sb.wrap(cmd); err != nil {
			return fail("%v", err)
		}
		defer sb.cleanup()
	} else {
		fmt.Fprintf(io.err, "vibing-agent claude: %s\n", choice.Notice)
	}
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				return 128 + int(ws.Signal())
			}
			return ee.ExitCode()
		}
		return fail("%v", err)
	}
	return exitOK
}
