package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"vibing/internal/command"
	"vibing/internal/procs"
)

// Options say how a view becomes a bwrap command line.
type Options struct {
	// Terminal keeps the controlling terminal (vibing-agent claude): no
	// --new-session, so the person's keys reach the CLI.
	Terminal bool
	// Show are more folders the sandbox shows read-only at their own path
	// (the audit relay's socket folder, which may lie in the private /tmp).
	Show []string
	// Interactive says the CLI talks to a person (no -p): the trust they
	// give a folder in the CLI's dialog is carried back to ~/.claude.json.
	Interactive bool
	// Warn tells the person what the sandbox could not do after the
	// command ended (a change to ~/.claude.json it did not carry back);
	// nil: not told.
	Warn func(string)
	// EnvAllow are more variables (shell patterns) that pass into the
	// sandbox although they look like credentials (sandbox_env_allow).
	EnvAllow []string
	// Getenv reads the session's variables that name its sockets (nil:
	// os.Getenv).
	Getenv func(string) string
	// Egress is the proxy's Unix socket (internal/egress): the sandbox
	// gets a network namespace of its own, and Agent (vibing-agent, shown
	// read-only) runs inside as its forwarder before the command. "": the
	// network is the person's.
	Egress string
	Agent  string
}

// Prepared is a view ready to run: the bwrap arguments (up to the "--"
// before the command) and what to undo after the command ended.
type Prepared struct {
	Args []string
	// Env are the KEY=VALUE entries the command needs in there.
	Env []string
	// Withheld are the variables Wrap left outside (the session's
	// sockets, credentials).
	Withheld []string
	claude   *claudeState
	dir      string // our empty file and folder
	holds    []hold // the placeholders this sandbox relies on (placeholders.go)
	opts     Options
	// hiddenSockets are the session's folders and sockets hidden inside
	hiddenSockets []string
	seccomp       string     // the filter's file ("" on an architecture it does not know)
	files         []*os.File // handed to bwrap: closed by Cleanup
}

// Prepare makes the placeholders and the arguments. Cleanup must be called
// once the command ended.
func (v *View) Prepare(o Options) (*Prepared, error) {
	dir, err := os.MkdirTemp("", "vibing-sandbox-")
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	p := &Prepared{dir: dir, opts: o}
	emptyFile, emptyDir := filepath.Join(dir, "empty"), filepath.Join(dir, "emptydir")
	if err := os.WriteFile(emptyFile, nil, 0o444); err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	if err := os.Mkdir(emptyDir, 0o555); err != nil {
		p.Cleanup()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	sweepPlaceholders()
	if TIOCSTIFilterHere() {
		p.seccomp = filepath.Join(dir, "seccomp.bpf")
		if err := os.WriteFile(p.seccomp, tiocstiFilter(), 0o400); err != nil {
			p.Cleanup()
			return nil, fmt.Errorf("sandbox: %w", err)
		}
	}

	a := append([]string(nil), baseFlags...)
	if o.Egress != "" {
		if o.Agent == "" {
			p.Cleanup()
			return nil, errors.New("sandbox: the network namespace needs vibing-agent inside as its forwarder")
		}
		// no host, port or abstract socket outside: only the proxy's
		// socket leads out
		a = append(a, "--unshare-net")
		o.Show = append(append([]string(nil), o.Show...), filepath.Dir(o.Egress))
		p.opts = o
	}
	if !o.Terminal {
		a = append(a, "--new-session")
	}
	a = append(a, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp")
	// the person's session: the runtime folders become empty (before
	// anything vibing itself shows is bound back over them)
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	sockDirs, sockFiles := sessionSockets(getenv)
	shown := append(append([]string(nil), v.Visible...), o.Show...)
	for _, w := range v.Writable {
		shown = append(shown, w.Path)
	}
	for _, d := range sockDirs {
		if v.inPrivateTmp(d, o.Show) {
			continue
		}
		a = append(a, "--tmpfs", d)
		p.hiddenSockets = append(p.hiddenSockets, d)
	}
	for _, vis := range append(append([]string(nil), v.Visible...), o.Show...) {
		a = append(a, "--ro-bind", vis, vis)
	}
	ws := append([]Entry(nil), v.Writable...)
	sort.SliceStable(ws, func(i, j int) bool { return len(ws[i].Path) < len(ws[j].Path) })
	for _, w := range ws {
		if w.Missing {
			if err := os.MkdirAll(w.Path, 0o700); err != nil {
				continue // the CLI makes it, or fails with its own message
			}
		}
		a = append(a, "--bind", w.Path, w.Path)
	}
	cs, err := v.prepareClaudeState(dir, o.Interactive)
	if err != nil {
		p.Cleanup()
		return nil, err
	}
	if cs != nil {
		p.claude = cs
		_, missing := os.Lstat(cs.mount)
		if _, err := p.placeholder(cs.mount, false, missing != nil); err != nil {
			p.Cleanup()
			return nil, err
		}
		a = append(a, "--bind", cs.copy, cs.mount)
		p.Env = append(p.Env, "CLAUDE_CONFIG_DIR="+filepath.Dir(cs.mount))
	}
	var roDirs []string
	for _, e := range v.ReadOnly {
		if e.Dir {
			roDirs = append(roDirs, e.Path)
		}
	}
	var hidDirs []string
	for _, e := range v.Hidden {
		if e.Dir {
			hidDirs = append(hidDirs, e.Path)
		}
	}
	ro := sortedByLength(v.ReadOnly)
	for _, e := range ro {
		if !e.Bound || below(e.Path, roDirs) || below(e.Path, hidDirs) || !v.shows(e.Path) {
			continue
		}
		src := e.Path
		ph, err := p.placeholder(e.Path, e.Dir, e.Missing)
		if err != nil {
			p.Cleanup()
			return nil, err
		}
		if ph {
			src = emptyFile
			if e.Dir {
				src = emptyDir
			}
		}
		a = append(a, "--ro-bind", src, e.Path)
	}
	for _, e := range sortedByLength(v.Hidden) {
		if below(e.Path, hidDirs) || !v.shows(e.Path) {
			continue
		}
		src := emptyFile
		if e.Dir {
			src = emptyDir
		}
		a = append(a, "--ro-bind", src, e.Path)
	}
	// every socket a session variable names, wherever it lies: an empty
	// read-only file over it (connect is refused)
	for _, f := range sockFiles {
		if v.inPrivateTmp(f, o.Show) || below(f, sockDirs) && !within(f, shown) {
			continue
		}
		a = append(a, "--ro-bind", emptyFile, f)
		p.hiddenSockets = append(p.hiddenSockets, f)
	}
	a = append(a, "--chdir", v.Cwd)
	p.Args = a
	return p, nil
}

// shows reports whether p is in the sandbox at all: below /tmp only what
// is bound over the private /tmp shows.
func (v *View) shows(p string) bool {
	if !command.Within(p, "/tmp") {
		return true
	}
	for _, vis := range v.Visible {
		if command.Within(p, vis) {
			return true
		}
	}
	for _, w := range v.Writable {
		if command.Within(p, w.Path) {
			return true
		}
	}
	return false
}

// Vanishes reports whether a file written at p inside the sandbox is gone
// when it ends: p lies in the private /tmp, where nothing of the person's
// shows.
func (v *View) Vanishes(p string) bool { return v != nil && !v.shows(p) }

// inPrivateTmp reports whether p lies below /tmp where nothing shows it
// (the private /tmp already hides it).
func (v *View) inPrivateTmp(p string, show []string) bool {
	return command.Within(p, "/tmp") && !v.shows(p) && !within(p, show)
}

// within reports whether p lies in (or is) one of dirs.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		if command.Within(p, d) {
			return true
		}
	}
	return false
}

// below reports whether p lies strictly inside one of dirs.
func below(p string, dirs []string) bool {
	for _, d := range dirs {
		if p != d && command.Within(p, d) {
			return true
		}
	}
	return false
}

func sortedByLength(in []Entry) []Entry {
	out := append([]Entry(nil), in...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Path) < len(out[j].Path) })
	return out
}

// Wrap puts bwrap in front of the program cmd runs: bwrap ARGS -- PROGRAM
// ARGS, inside the keeper when cmd runs one (internal/procs), so the keeper
// stays outside and ends the whole sandbox.
func (p *Prepared) Wrap(cmd *exec.Cmd, bwrap string) {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// the session's sockets and the credentials the CLI does not need
	// stay outside
	cmd.Env, p.Withheld = FilterEnv(cmd.Env, p.opts.EnvAllow)
	cmd.Env = append(cmd.Env, p.Env...)
	if p.opts.Egress != "" && !hasVar(cmd.Env, quietCLI) {
		// the CLI's own updates, telemetry and error reports would only
		// meet the proxy's refusal (or a question in the chat)
		cmd.Env = append(cmd.Env, quietCLI+"=1")
	}
	prefix := append([]string{bwrap}, p.Args...)
	if p.seccomp != "" {
		// nothing inside types into the person's terminal (seccomp.go)
		if f, err := os.Open(p.seccomp); err == nil {
			p.files = append(p.files, f)
			prefix = append(prefix, "--seccomp", strconv.Itoa(procs.PassFile(cmd, f)))
		}
	}
	prefix = append(prefix, "--")
	if p.opts.Egress != "" {
		prefix = append(prefix, p.opts.Agent, "sandbox-net", "--socket", p.opts.Egress, "--")
	}
	procs.Prefix(cmd, prefix)
}

// quietCLI keeps the claude CLI from traffic other than its API.
const quietCLI = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// HiddenSockets are the session's folders and sockets hidden inside.
func (p *Prepared) HiddenSockets() []string { return p.hiddenSockets }

// Cleanup removes the placeholders no other sandbox relies on, carries
// the CLI's state back and removes our own files; call it once the command
// ended.
func (p *Prepared) Cleanup() {
	if p == nil {
		return
	}
	for _, f := range p.files {
		_ = f.Close()
	}
	p.files = nil
	if p.claude != nil {
		dropped, err := p.claude.sync()
		p.claude = nil
		p.warn(dropped, err)
	}
	p.release()
	if p.dir != "" {
		_ = os.Chmod(filepath.Join(p.dir, "emptydir"), 0o700)
		_ = os.RemoveAll(p.dir)
		p.dir = ""
	}
}

// warn names what was not carried back into ~/.claude.json.
func (p *Prepared) warn(dropped []string, err error) {
	if p.opts.Warn == nil {
		return
	}
	var named []string
	for _, k := range dropped {
		if grantsOrRuns(k) {
			named = append(named, k)
		}
	}
	if len(named) > 0 {
		p.opts.Warn(fmt.Sprintf("changes the sandboxed session made to ~/.claude.json that can run code or grant permissions are not kept: %s (make them outside the sandbox, e.g. claude mcp add)",
			strings.Join(named, ", ")))
	}
	if err != nil {
		p.opts.Warn(fmt.Sprintf("the claude CLI's state (~/.claude.json) from the sandboxed session could not be saved: %v", err))
	}
}

// removeIfEmpty removes p when it is an empty regular file or an empty
// folder, and reports whether it did.
func removeIfEmpty(p string) bool {
	fi, err := os.Lstat(p)
	if err != nil {
		return false
	}
	switch {
	case fi.Mode().IsRegular() && fi.Size() == 0:
	case fi.IsDir():
		f, err := os.Open(p)
		if err != nil {
			return false
		}
		_, err = f.Readdirnames(1)
		f.Close()
		if !errors.Is(err, io.EOF) {
			return false
		}
	default:
		return false
	}
	return os.Remove(p) == nil
}
