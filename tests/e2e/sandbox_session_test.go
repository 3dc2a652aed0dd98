package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"vibing/internal/fakeapi"
)

// serve listens on a unix socket at path and counts who connects.
func serve(t *testing.T, path string, n *atomic.Int32) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o700))
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
			n.Add(1)
			_, _ = c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
}

// With the engine allowing every call, a script under vibing-agent run
// (the real CLI, its keeper, bubblewrap) tries the person's session: the
// editor's socket ($NVIM), the runtime folder's bus, the SSH agent, a
// token in the environment, pushing keys into a terminal. None is there;
// the CLI still reaches its API with its own variables.
func TestSandboxSessionUnderRun(t *testing.T) {
	needSandbox(t)
	const ghSecret = "ghp-sandbox-session-secret"
	w := newWorld(t, "permissions_mode: bypassPermissions\n", "sandbox: \"on\"\n", bash("sh check.sh"), fakeapi.Turn{Text: "done"})
	runDir := filepath.Join(w.home, "run")
	nvim := filepath.Join(w.dir, "nvim.sock")
	bus := filepath.Join(runDir, "bus")
	agent := filepath.Join(w.home, "agent", "ssh.sock")
	var reached atomic.Int32
	for _, s := range []string{nvim, bus, agent} {
		serve(t, s, &reached)
	}
	t.Setenv("XDG_RUNTIME_DIR", runDir)
	t.Setenv("NVIM", nvim)
	t.Setenv("SSH_AUTH_SOCK", agent)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+bus)
	t.Setenv("GITHUB_TOKEN", ghSecret)
	t.Setenv("LANG", "C.UTF-8")
	check := strings.Join([]string{
		"grep Seccomp: /proc/self/status",
		"env | grep -E '^(NVIM|GITHUB_TOKEN|XDG_RUNTIME_DIR|SSH_AUTH_SOCK|DBUS_SESSION_BUS_ADDRESS|ANTHROPIC_BASE_URL|PATH|HOME|LANG)=' | cut -d= -f1 | sort | tr '\\n' ' '",
		"echo",
		`python3 -c '
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(p); print("CONNECTED", p)
    except OSError as e:
        print("REFUSED", p)
' ` + nvim + " " + bus + " " + agent,
		"echo done-check",
	}, "\n")
	w.write(filepath.Join(w.dir, "check.sh"), check+"\n")

	res := w.run(allowAll)
	if res.code != 0 {
		t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
	}
	results := toolResults(w.api)
	t.Logf("tool results:\n%s", results)
	for _, r := range w.api.Requests() {
		if strings.Contains(r.Body, ghSecret) {
			t.Errorf("GITHUB_TOKEN reached the API through a tool result")
		}
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("%d connections reached the session's sockets from inside", n)
	}
	for _, want := range []string{"done-check", `Seccomp:\t2`, "ANTHROPIC_BASE_URL HOME LANG PATH \\n", "REFUSED " + nvim, "REFUSED " + bus, "REFUSED " + agent} {
		if !strings.Contains(results, want) {
			t.Errorf("tool results lack %q", want)
		}
	}
	if strings.Contains(results, "CONNECTED") {
		t.Errorf("a session socket was reachable inside")
	}
}
