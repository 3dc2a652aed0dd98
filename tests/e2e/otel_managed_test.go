package e2e

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/audit"
	"vibing/internal/auditspool"
)

// The organisation's endpoint in the managed policy (the real
// /etc/vibing/policy.yaml, in a private mount namespace): the person's
// environment turns the export off and points it elsewhere, and the rows
// still reach the organisation's collector, with the inputs the policy
// asks for.
func TestOTelManagedEndpointCannotBeTurnedOff(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("this test needs root for a private mount namespace (unshare -m); CI runs as root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is missing: %v", err)
	}
	c := startCollector(t)
	tmp := t.TempDir()
	for _, d := range []string{"upper", "work", "home"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	dbPath := filepath.Join(tmp, "audit.sqlite")
	cfg := filepath.Join(tmp, "options.yaml")
	if err := os.WriteFile(cfg, []byte("audit_path: "+dbPath+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := audit.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []audit.Entry{
		{Tool: "Bash", Action: "tool:Bash:curl https://example.com", Decision: "deny", Rule: "Bash(curl:*)", Source: "managed:/etc/vibing/policy.yaml",
			Reason: "Bash (curl https://example.com) is denied by the rule Bash(curl:*).", ToolUseID: "toolu_1", SessionID: "s1"},
		{Tool: "Read", Action: "tool:Read:/p/README.md", Decision: "allow", Source: "mode", ToolUseID: "toolu_2", SessionID: "s1"},
	} {
		if err := db.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	script := `set -e
mount -t overlay overlay -o lowerdir=/etc,upperdir=` + tmp + `/upper,workdir=` + tmp + `/work /etc
mkdir -p /etc/vibing
printf 'audit_export_endpoint: http://%s\naudit_export_protocol: grpc\naudit_export_inputs: true\n' "$GRPC" > /etc/vibing/policy.yaml
"$AGENT" audit export --config "$CFG"
`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), "AGENT="+agentBin, "CFG="+cfg, "GRPC="+c.grpc, "HOME="+filepath.Join(tmp, "home"),
		"OTEL_SDK_DISABLED=true", "OTEL_LOGS_EXPORTER=none", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1",
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf", "VIBING_AUDIT_EXPORT_INPUTS=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("audit export under the managed policy: %v\n%s", err, out)
	}
	rs := c.waitRecords("both rows", func(rs []record) bool { return len(rs) >= 2 })
	for _, r := range rs {
		if r["tool_use_id"] == "toolu_1" {
			if r["vibing.action"] != "tool:Bash:curl https://example.com" || !strings.Contains(r["vibing.reason"], "Bash(curl:*)") ||
				r["source"] != "managed:/etc/vibing/policy.yaml" || r["decision"] != "deny" {
				t.Errorf("the curl row: %v", r)
			}
		}
	}
}

// A collector that takes the connection and never answers: the decisions
// of a chat are not held up (three calls, each would wait the export's
// ten-second timeout if they did), the run ends within its one-second grace,
// and the rows wait in SQLite for the next pass.
func TestOTelSlowCollectorNeverDelaysDecisions(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, conn) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	frontmatter := "permissions_allow: [\"Bash(touch:*)\"]\n"
	timed := func(export bool) (time.Duration, *world) {
		if export {
			t.Setenv("OTEL_LOGS_EXPORTER", "otlp")
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+l.Addr().String())
		}
		w := newWorld(t, frontmatter, noSandbox, bash("touch a.txt"), bash("touch b.txt"), bash("touch c.txt"))
		start := time.Now()
		res := w.run(nil)
		if res.code != 0 || !w.exists("c.txt") {
			t.Fatalf("run exit %d (c.txt made: %v): %s", res.code, w.exists("c.txt"), res.stderr)
		}
		return time.Since(start), w
	}
	base, _ := timed(false)
	slow, w := timed(true)
	t.Logf("run without export %s, with a collector that never answers %s", base.Round(time.Millisecond), slow.Round(time.Millisecond))
	if slow > base+2500*time.Millisecond {
		t.Errorf("the run took %s with a silent collector against %s without export: the export held it up", slow, base)
	}
	rows := dbRows(t, w.auditDB)
	if len(rows) != 3 {
		t.Fatalf("rows %+v, want 3", rows)
	}
	for _, r := range rows {
		if r.Exported != 0 {
			t.Errorf("row %d marked exported (%d) though the collector never answered", r.ID, r.Exported)
		}
	}
	mu.Lock()
	n := len(conns)
	mu.Unlock()
	if n == 0 {
		t.Error("the export never reached the silent collector")
	}
}

// The editor's rpc host exports on its own: rows spooled beside the
// database (a terminal session's hook, the editor's @-mentions) reach the
// collector while the editor is open, without an audit command.
func TestOTelEditorExportsSpooledRows(t *testing.T) {
	c := startCollector(t)
	c.exportEnv(t, "http/protobuf")
	w := newWorld(t, "", noSandbox)
	if err := auditspool.Append(auditspool.For(w.auditDB), auditspool.Entry{Tool: "Bash", Action: "tool:Bash:rm -rf build",
		Decision: "deny", Rule: "Bash(rm:*)", Source: "hook", Layer: "chat", ToolUseID: "toolu_spooled", SessionID: "term-1"}); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(agentBin, "rpc", "--config", w.config)
	cmd.Env = append(os.Environ(), "HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"))
	stdin, err := cmd.StdinPipe() // held open: the editor is there
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	rs := c.waitRecords("the spooled hook row", func(rs []record) bool { return len(rs) == 1 })
	if r := rs[0]; r["tool_use_id"] != "toolu_spooled" || r["vibing.writer"] != "hook" || r["source"] != "chat" || r["vibing.rule"] != "Bash(rm:*)" {
		t.Errorf("record %v", r)
	}
	if rows := dbRows(t, w.auditDB); len(rows) != 1 || rows[0].Hash != rs[0]["vibing.row_hash"] {
		t.Errorf("rows %+v, want the one row, its hash in the record", rows)
	}
}
