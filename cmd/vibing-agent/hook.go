package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"vibing/internal/auditspool"
	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/hook"
	"vibing/internal/policy"
	"vibing/internal/selfexe"
	"vibing/internal/session"
)

func init() {
	register(subcommand{name: "hook", summary: "decide Claude Code's tool calls as its PreToolUse hook; install, uninstall, status", run: runHook})
}

const hookUsage = `Usage: vibing-agent hook [--config FILE] [--chat FILE]
       vibing-agent hook install   [--scope user|project|local] [--config FILE] [--chat FILE]
       vibing-agent hook install   --scope managed --print
       vibing-agent hook uninstall [--scope user|project|local]
       vibing-agent hook status

Without a subcommand it is the Claude Code command hook: it reads one hook
input (PreToolUse or UserPromptSubmit) on stdin and prints one answer. Guard,
deny and ask rules answer deny or ask, allow rules allow; a call only the mode
would decide prints {} and Claude Code's own mode stands. A prompt whose
@-mentions name a file a Read deny rule covers is blocked. Any error prints a
deny. Every decision is an audit row (source hook), spooled beside the audit
database and imported by 'vibing-agent audit'.

install writes the entry into a Claude Code settings file (user:
~/.claude/settings.json, project: .claude/settings.json, local:
.claude/settings.local.json) in exec form with a timeout and
"onFailure":"block", keeping every other key and hook and a backup
(FILE.vibing-backup). --scope managed --print prints the file for
/etc/claude-code/managed-settings.d/ instead. status finds the entries,
self-tests them and names what would switch them off.

Flags:
`

const hookExamples = `
Examples:
  vibing-agent hook install
  vibing-agent hook install --scope project --chat .vibing/rules.md
  vibing-agent hook install --scope managed --print | sudo tee /etc/claude-code/managed-settings.d/vibing.json
  vibing-agent hook status
  vibing-agent hook uninstall
  echo '{"hook_event_name":"PreToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"sudo ls"}}' | vibing-agent hook
`

func hookFlags(name string, io stdio) (*flag.FlagSet, *string, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.err)
	fs.Usage = func() {
		fmt.Fprint(io.err, hookUsage)
		fs.PrintDefaults()
		fmt.Fprint(io.err, hookExamples)
	}
	configPath := registerConfigFlag(fs)
	chat := fs.String("chat", "", "a chat `FILE` whose frontmatter rules apply too (optional)")
	return fs, configPath, chat
}

func runHook(ctx context.Context, args []string, io stdio) int {
	if len(args) > 0 {
		switch args[0] {
		case "install", "uninstall", "status":
			return runHookAdmin(ctx, args[0], args[1:], io)
		}
	}
	fs, configPath, chat := hookFlags("hook", io)
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		// the installed entry is wrong: refuse rather than say nothing
		_, _ = io.out.Write(append(hook.Refuse("vibing-agent hook was started with a wrong command line (see vibing-agent hook --help), so the call is refused."), '\n'))
		return exitOK
	}
	raw, err := readLimited(io.in, 64<<20)
	if err != nil {
		_, _ = io.out.Write(append(hook.Refuse(fmt.Sprintf("vibing-agent hook could not read its input (%v), so the call is refused.", err)), '\n'))
		return exitOK
	}
	h := newHook(*configPath, *chat)
	_, _ = io.out.Write(append(h.Handle(raw), '\n'))
	return exitOK
}

func readLimited(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("more than %d bytes", max)
	}
	return data, err
}

// newHook wires the hook to the engine loader and the audit spool. The
// config is read only when a call needs it.
func newHook(configPath, chat string) *hook.Hook {
	home, _ := os.UserHomeDir()
	if chat != "" {
		if abs, err := filepath.Abs(chat); err == nil {
			chat = abs
		}
	}
	var cfg *config.Config
	var cfgErr error
	loaded := false
	getConfig := func() (*config.Config, error) {
		if !loaded {
			cfg, cfgErr = loadConfig(configPath)
			loaded = true
		}
		return cfg, cfgErr
	}
	return &hook.Hook{
		Chat: chat,
		Home: home,
		Load: func(in *hook.Input, mode string) (hook.Decider, error) {
			c, err := getConfig()
			if err != nil {
				return nil, err
			}
			return loadHookEngine(projectDir(in.Cwd), chat, mode, c, configPath)
		},
		Record: func(e auditspool.Entry) error {
			c, err := getConfig()
			if err != nil {
				return err
			}
			// inside the sandbox the spool is read-only: the relay of
			// vibing-agent claude (or run) outside takes the row
			return auditspool.Write(auditspool.For(c.AuditDB()), e)
		},
		StandAside: func() bool { return hook.InsideRun(hook.ThisProcess()) },
		SelfTest:   os.Getenv(hook.SelfTestEnv) == "1",
	}
}

// projectDir is the session's project: $CLAUDE_PROJECT_DIR (the folder
// claude started in; a Bash cd does not move it), else the input's cwd,
// else the hook's own folder (which the CLI sets to the session's).
func projectDir(cwd string) string {
	for _, d := range []string{os.Getenv("CLAUDE_PROJECT_DIR"), cwd} {
		if filepath.IsAbs(d) {
			if fi, err := os.Stat(d); err == nil && fi.IsDir() {
				return filepath.Clean(d)
			}
		}
	}
	wd, _ := os.Getwd()
	return wd
}

// loadHookEngine builds the engine that decides a hook call: no chat
// unless --chat names one, rules anchored at the project folder, the CLI's
// permission mode, never "resumed" (the CLI asks itself). The rules come
// from the one loader of every policy layer (SPEC §11): managed, user
// (~/.claude/settings.json included), project (allow rules once trusted),
// the chat when --chat names one.
func loadHookEngine(project, chatFile, mode string, cfg *config.Config, configPath string) (*session.Engine, error) {
	var s frontmatter.Settings
	if chatFile != "" {
		doc, err := frontmatter.ReadFile(chatFile)
		if err != nil {
			return nil, fmt.Errorf("chat %s: %w", chatFile, err)
		}
		if s, err = doc.Settings(); err != nil {
			return nil, fmt.Errorf("chat %s: %w", chatFile, err)
		}
	}
	s.Mode, s.SessionID, s.ForkOf = mode, "", "" // fork_of, too, would make it resumed
	ch, err := policy.Open(policy.Request{Config: cfg, ConfigFile: configPath, ChatFile: chatFile, Settings: &s, Dir: project, Cwd: project})
	if err != nil {
		return nil, err
	}
	// ch.LoadErr (an invalid rule, an unknown preset) leaves an engine
	// that fails closed on it: it denies what the bad rule might cover.
	return ch.Engine, nil
}

func runHookAdmin(_ context.Context, sub string, args []string, io stdio) int {
	fs, configPath, chat := hookFlags("hook "+sub, io)
	scope := fs.String("scope", hook.ScopeUser, "settings `SCOPE`: user, project, local (managed with --print)")
	print := fs.Bool("print", false, "print the entry instead of writing it (with --scope managed)")
	project := fs.String("project", "", "the project `DIR` for --scope project/local and status (default: the current folder)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(io.err, "vibing-agent hook %s: unexpected argument %q\n", sub, fs.Arg(0))
		return exitUsage
	}
	self, err := selfexe.HookCommand() // the program a hook entry runs: the lean build when there
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent hook %s: %v\n", sub, err)
		return exitFail
	}
	paths := hook.Paths{Project: *project}
	paths.Home, _ = os.UserHomeDir()
	if paths.Project == "" {
		paths.Project, _ = os.Getwd()
	}
	if paths.Project, err = filepath.Abs(paths.Project); err != nil {
		fmt.Fprintf(io.err, "vibing-agent hook %s: %v\n", sub, err)
		return exitFail
	}
	switch sub {
	case "status":
		rep := hook.Status(paths, self, runHookCommand)
		fmt.Fprint(io.out, rep.Text())
		if !rep.OK() {
			return exitFail
		}
		return exitOK
	case "install":
		var extra []string
		for _, f := range []struct{ flag, val string }{{"--config", *configPath}, {"--chat", *chat}} {
			if f.val != "" {
				abs, err := filepath.Abs(f.val)
				if err != nil {
					fmt.Fprintf(io.err, "vibing-agent hook install: %v\n", err)
					return exitFail
				}
				extra = append(extra, f.flag, abs)
			}
		}
		entry := hook.NewEntry(self, extra...)
		if *scope == hook.ScopeManaged {
			if !*print {
				fmt.Fprintln(io.err, "vibing-agent hook install: --scope managed only prints the entry (add --print) for an administrator to place in /etc/claude-code/managed-settings.d/")
				return exitUsage
			}
			_, _ = io.out.Write(hook.ManagedJSON(entry))
			return exitOK
		}
		file, err := paths.File(*scope)
		if err != nil {
			fmt.Fprintf(io.err, "vibing-agent hook install: %v\n", err)
			return exitUsage
		}
		if *print {
			_, _ = io.out.Write(hook.ManagedJSON(entry))
			return exitOK
		}
		res, err := hook.Install(file, entry)
		return reportEdit(io, "install", res, err, "installed in")
	default: // uninstall
		if *scope == hook.ScopeManaged {
			fmt.Fprintln(io.err, "vibing-agent hook uninstall: managed settings are an administrator's: remove the file from /etc/claude-code/managed-settings.d/")
			return exitUsage
		}
		file, err := paths.File(*scope)
		if err != nil {
			fmt.Fprintf(io.err, "vibing-agent hook uninstall: %v\n", err)
			return exitUsage
		}
		res, err := hook.Uninstall(file)
		return reportEdit(io, "uninstall", res, err, "removed from")
	}
}

func reportEdit(io stdio, sub string, res hook.Result, err error, did string) int {
	if err != nil {
		fmt.Fprintf(io.err, "vibing-agent hook %s: %v\n", sub, err)
		return exitFail
	}
	if !res.Changed {
		fmt.Fprintf(io.out, "Nothing to change in %s.\n", res.Path)
		return exitOK
	}
	fmt.Fprintf(io.out, "The vibing hook was %s %s.\n", did, res.Path)
	if res.Backup != "" {
		fmt.Fprintf(io.out, "The file as it was is kept in %s.\n", res.Backup)
	}
	return exitOK
}

// runHookCommand runs an installed hook entry the way Claude Code does (no
// shell), for status's self-test.
func runHookCommand(prog string, args []string, stdin []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = append(os.Environ(), hook.SelfTestEnv+"=1") // its decisions are no audit rows
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%v %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}
