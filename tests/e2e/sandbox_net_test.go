package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"vibing/internal/audit"
	"vibing/internal/auditspool"
	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// listenOn serves "hello from NAME" on addr (a loopback address) and counts
// the requests that arrive.
func listenOn(t *testing.T, addr, name string, n *atomic.Int32) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		fmt.Fprintf(w, "hello from %s\n", name)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// Under vibing-agent run with the sandbox on and the engine allowing every
// call (bypassPermissions), scripts reach a host an allow rule names
// through the proxy, and a host no rule names only when the person allows
// it in the chat's approval block: not the others (through the proxy or
// around it), not the person's own services on the loopback outside. The
// CLI itself reaches its (fake) API. Each connection is an audit row.
func TestSandboxNetworkEgress(t *testing.T) {
	needSandbox(t)
	var allowedHits, otherHits, deniedHits, askedHits atomic.Int32
	asked := listenOn(t, "127.0.0.5:0", "asked", &askedHits)
	allowed := listenOn(t, "127.0.0.2:0", "allowed", &allowedHits)
	other := listenOn(t, "127.0.0.3:0", "other", &otherHits)
	denied := listenOn(t, "127.0.0.4:0", "denied", &deniedHits)
	// (a deny host rule would make the engine refuse these lines itself:
	// the hosts python3 reaches cannot be known before it runs; the
	// proxy's refusal of deny hosts is in internal/egress's tests)
	front := "permissions_mode: bypassPermissions\npermissions_allow:\n  - WebFetch(127.0.0.2)\n"
	lines := []string{
		// honours the proxy variables
		"curl -sS -m 5 http://" + allowed + "/ || echo CURL-ALLOWED-FAILED",
		"curl -fsS -m 5 http://" + other + "/ || echo CURL-OTHER-REFUSED",
		"curl -fsS -m 5 http://" + denied + "/ || echo CURL-DENIED-REFUSED",
		"curl -fsS -m 5 http://" + asked + "/ || echo CURL-ASKED-FAILED",
		"curl -fsS -m 5 http://localhost:" + strings.Split(allowed, ":")[1] + "/ || echo CURL-LOCALHOST-REFUSED",
		// ignores them: nothing outside is there
		"curl -sS -m 5 --noproxy '*' http://" + allowed + "/ || echo CURL-NOPROXY-UNREACHABLE",
		`python3 - <<'EOF'
import socket, sys, urllib.request
for name, url in (("ALLOWED", "http://` + allowed + `/"), ("OTHER", "http://` + other + `/")):
    try:
        print("PY-" + name, urllib.request.urlopen(url, timeout=5).read().decode().strip())
    except Exception as e:
        print("PY-" + name + "-REFUSED", type(e).__name__)
host, port = "` + allowed + `".split(":")
s = socket.socket()
s.settimeout(5)
try:
    s.connect((host, int(port))); print("PY-RAW-CONNECTED")
except OSError as e:
    print("PY-RAW-UNREACHABLE")
EOF`,
		"echo done-net",
	}
	w := newWorld(t, front, "sandbox: \"on\"\n", bash(strings.Join(lines, "\n")), fakeapi.Turn{Text: "done"})
	var netAsks []string
	res := w.run(func(o run.Output, send func(run.Input)) {
		if o.Type != "approval_request" {
			return
		}
		answer := run.AllowOnce
		if p, _ := o.Input["prompt"].(string); strings.HasPrefix(p, "a connection from inside the sandbox") {
			netAsks = append(netAsks, o.Input["url"].(string))
			if !strings.Contains(p, asked) {
				answer = "deny_once"
			}
		}
		send(run.Input{Type: "approval_response", ID: o.ID, Decision: answer})
	})
	if res.code != 0 {
		t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
	}
	results := toolResults(w.api)
	for _, want := range []string{"hello from allowed", "CURL-OTHER-REFUSED", "CURL-DENIED-REFUSED", "CURL-LOCALHOST-REFUSED", "hello from asked", "CURL-NOPROXY-UNREACHABLE",
		"PY-ALLOWED hello from allowed", "PY-OTHER-REFUSED", "PY-RAW-UNREACHABLE", "done-net"} {
		if !strings.Contains(results, want) {
			t.Errorf("tool results lack %q", want)
		}
	}
	for _, bad := range []string{"CURL-ALLOWED-FAILED", "CURL-ASKED-FAILED", "hello from other", "hello from denied", "PY-RAW-CONNECTED"} {
		if strings.Contains(results, bad) {
			t.Errorf("tool results hold %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("tool results:\n%s", results)
	}
	if n := otherHits.Load() + deniedHits.Load(); n != 0 {
		t.Errorf("%d requests reached a host no rule allows", n)
	}
	if n := allowedHits.Load(); n != 2 {
		t.Errorf("the allowed host got %d requests, want 2 (curl and python3 through the proxy)", n)
	}
	wantAsks := []string{"https://" + other + "/", "https://" + denied + "/", "https://" + asked + "/", "https://localhost:" + strings.Split(allowed, ":")[1] + "/",
		"https://" + other + "/"}
	if strings.Join(netAsks, " ") != strings.Join(wantAsks, " ") {
		t.Errorf("the person was asked about %q, want %q", netAsks, wantAsks)
	}
	rows := networkRows(t, w)
	for _, want := range []string{
		"net:" + allowed + " allow WebFetch(127.0.0.2)",
		"net:" + other + " deny ",
		"net:" + denied + " deny ",
		"net:" + asked + " allow ",
	} {
		found := false
		for _, r := range rows {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no audit row %q in %q", want, rows)
		}
	}
}

// networkRows are the audit rows of connections: "action decision rule",
// from the database and the spool beside it.
func networkRows(t *testing.T, w *world) []string {
	t.Helper()
	var rows []string
	add := func(tool, action, decision, rule string) {
		if tool == "Network" {
			rows = append(rows, action+" "+decision+" "+rule)
		}
	}
	db, err := audit.Open(w.auditDB)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	es, err := db.Query(context.Background(), audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		add(e.Tool, e.Action, e.Decision, e.Rule)
	}
	_, err = auditspool.Import(auditspool.For(w.auditDB), func(es []auditspool.Entry) error {
		for _, e := range es {
			add(e.Tool, e.Action, e.Decision, e.Rule)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
