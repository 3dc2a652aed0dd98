package sandbox_test

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/sandbox"
	"vibing/internal/testdeps"
)

// With Egress the sandbox has a network of its own: nothing outside is
// reachable, not a port on the loopback, not an abstract Unix socket;
// only the proxy's socket, which it shows. (The forwarder is stood in for
// by a script that runs the command: internal/egress and the e2e tests
// cover the real one.)
func TestSandboxNetworkNamespace(t *testing.T) {
	bwrap, err := sandbox.Find()
	if err != nil {
		testdeps.Missing(t, "these tests need bubblewrap and user namespaces: %v", err)
	}
	p := newProject(t, "")
	v := p.view(t)
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	abstract, err := net.Listen("unix", "@vibing-sandbox-test-"+filepath.Base(p.dir))
	if err != nil {
		t.Fatal(err)
	}
	defer abstract.Close()
	proxyDir := t.TempDir()
	proxy := filepath.Join(proxyDir, "proxy.sock")
	pl, err := net.Listen("unix", proxy)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close()
	agent := filepath.Join(t.TempDir(), "agent")
	write(t, agent, "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n")
	if err := os.Chmod(agent, 0o755); err != nil {
		t.Fatal(err)
	}
	pr, err := v.Prepare(sandbox.Options{Egress: proxy, Agent: agent, Show: []string{filepath.Dir(agent)}})
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Cleanup()
	script := `
import socket, sys
def try_(name, fam, addr):
    s = socket.socket(fam)
    s.settimeout(3)
    try:
        s.connect(addr); print(name, "REACHED")
    except OSError:
        print(name, "UNREACHABLE")
try_("tcp", socket.AF_INET, ("127.0.0.1", int(sys.argv[1])))
try_("abstract", socket.AF_UNIX, "\0" + sys.argv[2][1:])
try_("proxy", socket.AF_UNIX, sys.argv[3])
`
	cmd := exec.Command("python3", "-c", script, strings.Split(tcp.Addr().String(), ":")[1], abstract.Addr().String(), proxy)
	cmd.Dir = p.dir
	pr.Wrap(cmd, bwrap)
	if !strings.Contains(strings.Join(cmd.Args, " "), "--unshare-net") {
		t.Errorf("no network namespace: %q", cmd.Args)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"tcp UNREACHABLE", "abstract UNREACHABLE", "proxy REACHED"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(strings.Join(cmd.Env, "\n"), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1") {
		t.Errorf("the CLI is not kept from traffic other than its API")
	}
}
