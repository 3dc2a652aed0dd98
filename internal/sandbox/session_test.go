package sandbox_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"vibing/internal/config"
	"vibing/internal/policy"
	"vibing/internal/sandbox"
	"vibing/internal/testdeps"
)

// listen serves a unix socket at path that greets whoever connects.
func listen(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
}

// connect is a python line that tries each socket and says what it got.
const connect = `python3 -c '
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("CONNECTED", p, s.recv(10))
    except OSError as e:
        print("REFUSED", p, e)
'`

// runEnv runs a shell line inside the sandbox of v with the session's
// variables env (on top of the test's own) and the options o.
func (p *project) runEnv(t *testing.T, v *sandbox.View, o sandbox.Options, env map[string]string, line string) string {
	t.Helper()
	bwrap, err := sandbox.Find()
	if err != nil {
		testdeps.Missing(t, "these tests need bubblewrap and user namespaces: %v", err)
	}
	o.Getenv = func(k string) string { return env[k] }
	pr, err := v.Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup()
	cmd := exec.Command("/bin/sh", "-c", line)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "HOME="+p.home)
	for k, val := range env {
		cmd.Env = append(cmd.Env, k+"="+val)
	}
	pr.Wrap(cmd, bwrap)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// No socket of the person's session is reachable inside: the editor's
// ($NVIM, in the project here), the runtime folder's (D-Bus), the SSH
// agent's; the audit relay vibing shows (below the runtime folder here)
// still is.
func TestSandboxSessionSockets(t *testing.T) {
	p := newProject(t, "")
	v := p.view(t)
	run := filepath.Join(p.home, "run")
	nvim := filepath.Join(p.dir, "nvim.sock")
	bus := filepath.Join(run, "bus")
	agent := filepath.Join(p.home, "agent", "ssh.sock")
	relayDir := filepath.Join(run, "vibing-relay")
	relay := filepath.Join(relayDir, "relay.sock")
	for _, s := range []string{nvim, bus, agent, relay} {
		listen(t, s)
	}
	env := map[string]string{"XDG_RUNTIME_DIR": run, "NVIM": nvim, "NVIM_LISTEN_ADDRESS": nvim, "SSH_AUTH_SOCK": agent,
		"DBUS_SESSION_BUS_ADDRESS": "unix:path=" + bus}
	out := p.runEnv(t, v, sandbox.Options{Show: []string{relayDir}}, env, connect+" "+nvim+" "+bus+" "+agent+" "+relay+"; ls "+run)
	for _, s := range []string{nvim, bus, agent} {
		if !strings.Contains(out, "REFUSED "+s) {
			t.Errorf("a session socket was reachable inside: %s\n%s", s, out)
		}
	}
	if !strings.Contains(out, "CONNECTED "+relay) {
		t.Errorf("vibing's own relay socket was not reachable inside:\n%s", out)
	}
	// everyday: the project and the home folder are still there
	if got := p.runEnv(t, v, sandbox.Options{}, env, "cat main.txt; test -d ~/.ssh && echo home"); !strings.Contains(got, "v1") || !strings.Contains(got, "home") {
		t.Errorf("the project or the home folder is gone: %s", got)
	}
}

// The sandboxed process's environment holds no variable that names a
// socket of the session and no credential the CLI does not need; the
// CLI's own variables and the everyday ones pass.
func TestSandboxEnvironment(t *testing.T) {
	p := newProject(t, "")
	v := p.view(t)
	env := map[string]string{
		"NVIM": "/nonexistent/nvim.sock", "NVIM_LISTEN_ADDRESS": "/nonexistent/nvim.sock", "XDG_RUNTIME_DIR": "/nonexistent/run",
		"SSH_AUTH_SOCK": "/nonexistent/agent", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/bus", "GPG_AGENT_INFO": "/x:1:1",
		"DOCKER_HOST": "unix:///nonexistent/docker.sock", "WAYLAND_DISPLAY": "wayland-0",
		"GITHUB_TOKEN": "ghsecret", "GH_TOKEN": "ghsecret", "NPM_TOKEN": "npmsecret", "MY_SERVICE_API_KEY": "svcsecret",
		"AWS_SECRET_ACCESS_KEY": "awssecret", "AWS_PROFILE": "awssecret", "DB_PASSWORD": "dbsecret", "STRIPE_SECRET": "stsecret",
		"ALLOWED_TOKEN": "allowedvalue",
		// the CLI's own and everyday variables
		"ANTHROPIC_API_KEY": "cli-key", "ANTHROPIC_AUTH_TOKEN": "cli-token", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
		"CLAUDE_CODE_OAUTH_TOKEN": "cli-oauth", "CLAUDE_CODE_USE_BEDROCK": "", "VIBING_RUN_TOKEN": "42",
		"LANG": "C.UTF-8", "TERM": "xterm-256color", "EDITOR": "nvim",
	}
	out := "\n" + p.runEnv(t, v, sandbox.Options{EnvAllow: []string{"ALLOWED_*"}}, env, "env")
	for _, gone := range []string{"NVIM=", "NVIM_LISTEN_ADDRESS=", "XDG_RUNTIME_DIR=", "SSH_AUTH_SOCK=", "DBUS_SESSION_BUS_ADDRESS=",
		"GPG_AGENT_INFO=", "DOCKER_HOST=", "WAYLAND_DISPLAY=", "secret"} {
		if gone != "secret" {
			gone = "\n" + gone // a name, not the end of another's
		}
		if strings.Contains(out, gone) {
			t.Errorf("%q reached the sandbox:\n%s", gone, out)
		}
	}
	for _, kept := range []string{"ANTHROPIC_API_KEY=cli-key", "ANTHROPIC_AUTH_TOKEN=cli-token", "ANTHROPIC_BASE_URL=", "CLAUDE_CODE_OAUTH_TOKEN=cli-oauth",
		"VIBING_RUN_TOKEN=42", "ALLOWED_TOKEN=allowedvalue", "PATH=", "HOME=" + p.home, "LANG=C.UTF-8", "TERM=xterm-256color", "EDITOR=nvim"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q did not reach the sandbox:\n%s", kept, out)
		}
	}
}

// With Bedrock the CLI needs the AWS credentials: they pass.
func TestFilterEnvCloud(t *testing.T) {
	kept, withheld := sandbox.FilterEnv([]string{"CLAUDE_CODE_USE_BEDROCK=1", "AWS_SECRET_ACCESS_KEY=x", "GITHUB_TOKEN=y", "NVIM=/s"}, nil)
	if strings.Join(kept, " ") != "CLAUDE_CODE_USE_BEDROCK=1 AWS_SECRET_ACCESS_KEY=x" || strings.Join(withheld, " ") != "GITHUB_TOKEN NVIM" {
		t.Errorf("kept %q, withheld %q", kept, withheld)
	}
	// sandbox_env_allow cannot bring a session socket back
	if kept, _ := sandbox.FilterEnv([]string{"NVIM=/s", "SSH_AUTH_SOCK=/a"}, []string{"*"}); len(kept) != 0 {
		t.Errorf("an allow pattern let a session socket in: %q", kept)
	}
}

// pty opens a new pseudo-terminal: its master and its terminal.
func pty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal(e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal(e)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// Nothing inside types into the person's terminal: `vibing-agent claude`
// keeps it (no new session), and TIOCSTI on it is refused (TIOCLINUX too);
// the terminal itself still works.
func TestSandboxNoTIOCSTI(t *testing.T) {
	if !sandbox.TIOCSTIFilterHere() {
		t.Skip("the filter does not know this architecture")
	}
	p := newProject(t, "")
	v := p.view(t)
	bwrap, err := sandbox.Find()
	if err != nil {
		testdeps.Missing(t, "these tests need bubblewrap and user namespaces: %v", err)
	}
	const push = `import fcntl, termios, os
for name, req in (("TIOCSTI", termios.TIOCSTI), ("TIOCLINUX", 0x541c)):
    try:
        fcntl.ioctl(0, req, b"Z"); print(name, "PUSHED")
    except OSError as e:
        print(name, "REFUSED", e)
print("isatty", os.isatty(0), "winsize", len(fcntl.ioctl(0, termios.TIOCGWINSZ, b"x" * 8)))
`
	_, tty := pty(t)
	pr, err := v.Prepare(sandbox.Options{Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup()
	cmd := exec.Command("python3", "-c", push)
	cmd.Dir = p.dir
	cmd.Stdin = tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	pr.Wrap(cmd, bwrap)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.Contains(string(out), "TIOCSTI REFUSED") || strings.Contains(string(out), "PUSHED") {
		t.Errorf("a process inside typed into the terminal:\n%s", out)
	}
	if !strings.Contains(string(out), "isatty True winsize 8") {
		t.Errorf("the terminal does not work inside:\n%s", out)
	}
}

// explain says what of the session stays outside.
func TestSandboxReportSession(t *testing.T) {
	p := newProject(t, "")
	sock := filepath.Join(p.home, "agent.sock")
	listen(t, sock)
	t.Setenv("SSH_AUTH_SOCK", sock)
	t.Setenv("GITHUB_TOKEN", "x")
	t.Setenv("MY_API_KEY", "x")
	ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: p.chat, Dir: p.dir,
		Places: policy.Places{Home: p.home, Managed: filepath.Join(p.home, "etc-vibing"), ClaudeManaged: filepath.Join(p.home, "etc-cc"),
			TrustStore: filepath.Join(p.home, "state/trust.json"), Binary: "/usr/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	r := sandbox.NewReport("auto", sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: p.home, EnvAllow: []string{"MY_*"}})
	text := r.Text()
	real, _ := filepath.EvalSymlinks(sock)
	for _, want := range []string{"Your session stays outside", real, "GITHUB_TOKEN", "SSH_AUTH_SOCK", "TIOCSTI"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "MY_API_KEY") {
		t.Errorf("the report names an allowed variable as left out:\n%s", text)
	}
}

// explain says what the network proxy lets through and refuses.
func TestSandboxReportNetwork(t *testing.T) {
	p := newProject(t, "'WebFetch(evil.example)'")
	write(t, p.chat, "---\nvibing.nvim: true\npermissions_allow: ['WebFetch(docs.example.com)', 'Bash(curl https://api.example.org/x:*)']\n"+
		"permissions_deny: ['WebFetch(evil.example)']\npermissions_ask: ['WebFetch(paste.example)']\n---\n")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8123")
	ch, err := policy.Open(policy.Request{Config: config.DefaultConfig(), ChatFile: p.chat, Dir: p.dir,
		Places: policy.Places{Home: p.home, Managed: filepath.Join(p.home, "etc-vibing"), ClaudeManaged: filepath.Join(p.home, "etc-cc"),
			TrustStore: filepath.Join(p.home, "state/trust.json"), Binary: "/usr/bin/true"}})
	if err != nil {
		t.Fatal(err)
	}
	r := sandbox.NewReport("auto", sandbox.Input{Engine: ch.Engine, Root: ch.Root, Home: p.home, Hosts: []string{"*.cdn.example"}})
	text := r.Text()
	for _, want := range []string{"the API: 127.0.0.1:8123, api.anthropic.com:443", "    WebFetch(docs.example.com)\n",
		"Bash(curl https://api.example.org/x:*) (api.example.org)", "*.cdn.example  (sandbox_hosts)",
		"refuses the hosts of WebFetch(evil.example), WebFetch(paste.example)", "any other host is asked about in the chat"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
}
