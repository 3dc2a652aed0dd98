package e2e

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"vibing/internal/fakeapi"
	"vibing/internal/run"
)

// dbRow is an audit row as stored, with what the export needs to match.
type dbRow struct {
	ID                                      int64
	Hash, Decision, Tool, Action, ToolUseID string
	Rule, Source, Layer                     string
	Exported                                int
}

func dbRows(t *testing.T, path string) []dbRow {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// the tool calls' rows (the sandbox's connections to the API are rows
	// of their own, tool Network: exported alike, not counted here)
	rs, err := db.Query("SELECT id, hash, decision, tool, action, tool_use_id, rule, source, layer, exported FROM audit WHERE tool != 'Network' ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []dbRow
	for rs.Next() {
		var r dbRow
		if err := rs.Scan(&r.ID, &r.Hash, &r.Decision, &r.Tool, &r.Action, &r.ToolUseID, &r.Rule, &r.Source, &r.Layer, &r.Exported); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// byHash indexes records by the row hash they carry.
func byHash(rs []record) map[string]record {
	m := map[string]record{}
	for _, r := range rs {
		m[r["vibing.row_hash"]] = r
	}
	return m
}

// hasAll reports whether a record arrived for every row.
func hasAll(rows []dbRow) func([]record) bool {
	return func(rs []record) bool {
		got := byHash(rs)
		for _, r := range rows {
			if _, ok := got[r.Hash]; !ok {
				return false
			}
		}
		return true
	}
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// exportStatus is `vibing-agent audit --export-status --json`.
func exportStatus(t *testing.T, w *world) map[string]any {
	t.Helper()
	cmd := exec.Command(agentBin, "audit", "--config", w.config, "--export-status", "--json")
	cmd.Env = append(os.Environ(), "HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("audit --export-status: %v\n%s", err, out)
	}
	var st struct {
		Status map[string]any `json:"status"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("audit --export-status: %v: %s", err, out)
	}
	return st.Status
}

// noSandbox runs the chats of the export's tests without the sandbox: its
// connections to the API are audit rows of their own (tool Network),
// exported alike, which these tests do not count.
const noSandbox = "sandbox: \"off\"\n"

// Every decision of a chat with the real CLI arrives at a real collector
// as one log record with the rule, the layer, the digest, the tool_use_id
// of the CLI's call and the row's hash, over both protocols; the inputs
// themselves go only as digests.
func TestOTelChatRowsArrive(t *testing.T) {
	for _, proto := range []string{"http/protobuf", "grpc"} {
		t.Run(proto, func(t *testing.T) {
			c := startCollector(t)
			c.exportEnv(t, proto)
			w := newWorld(t, "permissions_deny: [\"Bash(rm:*)\"]\npermissions_allow: [\"Bash(touch ok.txt)\"]\n", noSandbox,
				fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": "rm -rf victim", "description": "x"}}}},
				bash("touch ok.txt"), fakeapi.Turn{Text: "done"})
			res := w.run(nil)
			if res.code != 0 {
				t.Fatalf("run exit %d: %s", res.code, res.stderr)
			}
			uses := map[string]bool{}
			for _, e := range res.all("tool_use") {
				uses[e.ID] = true
			}
			rows := dbRows(t, w.auditDB)
			if len(rows) != 2 {
				t.Fatalf("audit rows = %+v, want the deny and the allow", rows)
			}
			got := byHash(c.waitRecords("a record per row", hasAll(rows)))
			for _, row := range rows {
				r := got[row.Hash]
				want := map[string]string{
					"event_name": "vibing.tool_decision", "event.name": "vibing.tool_decision",
					"tool_name": "Bash", "decision": row.Decision, "vibing.rule": row.Rule, "source": row.Source,
					"tool_use_id": row.ToolUseID, "vibing.action_sha256": sha(row.Action), "vibing.writer": "run",
					"resource.team": "platform", "resource.service.name": "vibing", "vibing.mode": "default",
				}
				for k, v := range want {
					if r[k] != v {
						t.Errorf("row %d: %s = %q, want %q (record %v)", row.ID, k, r[k], v, r)
					}
				}
				if !uses[r["tool_use_id"]] {
					t.Errorf("row %d: tool_use_id %q is none of the CLI's calls %v", row.ID, r["tool_use_id"], uses)
				}
				for _, k := range []string{"session.id", "resource.host.name", "user.name", "vibing.version", "vibing.chat"} {
					if r[k] == "" {
						t.Errorf("row %d: no %s in %v", row.ID, k, r)
					}
				}
				if _, ok := r["vibing.action"]; ok || strings.Contains(strings.Join(values(r), " "), "victim") {
					t.Errorf("row %d: the command itself was sent without audit_export_inputs: %v", row.ID, r)
				}
			}
			if deny := got[rows[0].Hash]; deny["decision"] != "deny" || deny["vibing.rule"] != "Bash(rm:*)" {
				t.Errorf("the rm row: %v, want deny by Bash(rm:*)", deny)
			}
			if st := exportStatus(t, w); st["pending"] != float64(0) || st["exported"] != float64(2) {
				t.Errorf("export status %v, want 2 exported, none waiting", st)
			}
		})
	}
}

func values(r record) []string {
	var out []string
	for _, v := range r {
		out = append(out, v)
	}
	return out
}

// The collector goes away in the middle of a live run: the run's next
// decisions are not held up, their rows wait in SQLite, and the next start
// sends them, oldest first, once the collector is back.
func TestOTelBacklogDrainsWhenCollectorReturns(t *testing.T) {
	c := startCollector(t)
	c.exportEnv(t, "http/protobuf")
	w := newWorld(t, "permissions_allow: [\"Bash(touch:*)\"]\n", noSandbox,
		bash("touch one.txt"), fakeapi.Turn{Text: "Made one."},
		bash("touch two.txt"), bash("touch three.txt"), fakeapi.Turn{Text: "Made two and three."},
		bash("touch four.txt"), fakeapi.Turn{Text: "Made four."})
	var firstSent []dbRow
	start := time.Now()
	var stoppedAt time.Time
	res := w.runLive([]string{"and two more"}, func(o run.Output, _ func(run.Input)) {
		if o.Type == "result" && o.Turn == 1 {
			firstSent = dbRows(t, w.auditDB)
			c.waitRecords("the first message's row", hasAll(firstSent))
			c.stop()
			stoppedAt = time.Now()
		}
	})
	if res.code != 0 || !w.exists("three.txt") {
		t.Fatalf("run exit %d (three.txt made: %v): %s", res.code, w.exists("three.txt"), res.stderr)
	}
	afterOutage := time.Since(stoppedAt)
	t.Logf("run: %s in all, %s after the collector stopped", time.Since(start).Round(time.Millisecond), afterOutage.Round(time.Millisecond))
	if afterOutage > 10*time.Second {
		t.Errorf("the second message took %s with the collector away; the export must not hold up decisions", afterOutage)
	}
	rows := dbRows(t, w.auditDB)
	if len(rows) != 3 || len(firstSent) != 1 {
		t.Fatalf("rows %+v (first message: %d), want 3 and 1", rows, len(firstSent))
	}
	if st := exportStatus(t, w); st["pending"] != float64(2) || st["exported"] != float64(1) {
		t.Errorf("export status with the collector away: %v, want 2 waiting, 1 exported", st)
	}
	if n := len(c.records()); n != 1 {
		t.Errorf("the collector has %d records, want the first message's 1", n)
	}

	c.start()
	w.run(nil) // the next start: its own row, and the backlog
	rows = dbRows(t, w.auditDB)
	got := c.waitRecords("the backlog and the new row", hasAll(rows))
	if len(rows) != 4 {
		t.Fatalf("rows = %d, want 4", len(rows))
	}
	// oldest first: the backlog's records came before the new run's
	order := map[string]int{}
	for i, r := range got {
		if _, seen := order[r["vibing.row_hash"]]; !seen {
			order[r["vibing.row_hash"]] = i
		}
	}
	if !(order[rows[1].Hash] < order[rows[2].Hash] && order[rows[2].Hash] < order[rows[3].Hash]) {
		t.Errorf("records out of order: %v for rows %v", order, rows)
	}
	if st := exportStatus(t, w); st["pending"] != float64(0) || st["exported"] != float64(4) {
		t.Errorf("export status after the collector returned: %v, want 4 exported", st)
	}
}

// A terminal session with the hook: its rows (spooled by the lean hook,
// which never links the exporter) reach the collector through audit
// export with the deciding rule, the layer, and the CLI's tool_use_id.
func TestOTelHookRowsArrive(t *testing.T) {
	c := startCollector(t)
	c.exportEnv(t, "grpc")
	w := newHookWorld(t, bash("rm victim.txt"), bash("touch ok.txt"), fakeapi.Turn{Text: "done"})
	w.write(filepath.Join(w.dir, "victim.txt"), "x")
	w.claude("tidy up")
	if out, code := w.agent("audit", "export", "--config", w.config); code != 0 {
		t.Fatalf("audit export: exit %d\n%s", code, out)
	}
	rows := dbRows(t, w.auditDB)
	if len(rows) != 2 {
		t.Fatalf("hook rows %+v, want 2", rows)
	}
	got := byHash(c.waitRecords("the hook's rows", hasAll(rows)))
	for _, row := range rows {
		r := got[row.Hash]
		if r["vibing.writer"] != "hook" || r["source"] != row.Layer || row.Layer == "" || !strings.HasPrefix(r["tool_use_id"], "toolu_") ||
			r["session.id"] == "" || r["vibing.mode"] == "" {
			t.Errorf("hook row %d: record %v (layer %q)", row.ID, r, row.Layer)
		}
	}
	if r := got[rows[0].Hash]; r["decision"] != "deny" || r["vibing.rule"] != "Bash(rm:*)" {
		t.Errorf("the rm row: %v, want deny by Bash(rm:*)", r)
	}
}
