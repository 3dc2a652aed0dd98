package audit_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/audit"
)

// helperEnv makes the test binary act as one writing process
// (see TestConcurrentProcesses): "<db path>|<writer number>".
const helperEnv = "VIBING_AUDIT_WRITER_HELPER"

const rowsPerWriter = 500

func TestMain(m *testing.M) {
	if path := os.Getenv(lineWriterEnv); path != "" {
		if err := writeLines(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if spec := os.Getenv(helperEnv); spec != "" {
		i := strings.LastIndexByte(spec, '|')
		w, _ := strconv.Atoi(spec[i+1:])
		if err := writeRows(spec[:i], w); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writeRows opens its own handle and records rowsPerWriter rows.
func writeRows(path string, writer int) error {
	db, err := audit.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	for j := 0; j < rowsPerWriter; j++ {
		err := db.Record(context.Background(), audit.Entry{
			Chat: "/chats/w" + strconv.Itoa(writer) + ".md", SessionID: "s", Tool: "Bash",
			Action: fmt.Sprintf("tool:Bash:echo %d-%d", writer, j), Decision: audit.DecisionAllow, Source: "allow_list",
		})
		if err != nil {
			return fmt.Errorf("writer %d row %d: %w", writer, j, err)
		}
	}
	return nil
}

func checkRows(t *testing.T, path string, writers int) {
	t.Helper()
	db, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	all, err := db.Query(context.Background(), audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != writers*rowsPerWriter {
		t.Errorf("Query() returned %d rows, want %d", len(all), writers*rowsPerWriter)
	}
	seen := map[string]bool{}
	for _, e := range all {
		if seen[e.Action] {
			t.Errorf("row %q recorded twice", e.Action)
		}
		seen[e.Action] = true
	}
	for w := 0; w < writers; w++ {
		got, err := db.Query(context.Background(), audit.Query{Chat: "/chats/w" + strconv.Itoa(w) + ".md"})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != rowsPerWriter {
			t.Errorf("writer %d has %d rows, want %d", w, len(got), rowsPerWriter)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	db, err := audit.Open(filepath.Join(t.TempDir(), "nested", "state", "audit.sqlite"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	if st, err := os.Stat(filepath.Dir(db.Path())); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("parent folder mode = %v, %v; want 0700", st.Mode().Perm(), err)
	}
	want := audit.Entry{
		Time: time.Date(2026, 2, 12, 10, 0, 5, 123456789, time.UTC), Chat: "/p/.vibing/chat/c.md", SessionID: "3f2a",
		Tool: "Bash", Action: "tool:Bash:git push origin main", Decision: audit.DecisionAskApproved,
		Rule: "Bash(git push:*)", Source: "ask_list", Reason: "Bash needs approval (ask: Bash(git push:*)) — «approved»",
	}
	if err := db.Record(context.Background(), want); err != nil {
		t.Fatalf("Record: %v", err)
	}
	got, err := db.Query(context.Background(), audit.Query{})
	if err != nil {
		t.Fatalf("Query: %v", err)
	}
	if len(got) != 1 {
		t.Fatalf("Query() = %d rows, want 1", len(got))
	}
	if !got[0].Time.Equal(want.Time) {
		t.Errorf("Time = %v, want %v", got[0].Time, want.Time)
	}
	got[0].Time = want.Time
	if !reflect.DeepEqual(got[0], want) {
		t.Errorf("Query()[0] = %+v, want %+v", got[0], want)
	}
}

func TestRecordRejects(t *testing.T) {
	db, err := audit.Open(filepath.Join(t.TempDir(), "audit.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, d := range []string{"", "ask", "ALLOW", "maybe"} {
		if err := db.Record(context.Background(), audit.Entry{Decision: d}); !errors.Is(err, audit.ErrDecision) {
			t.Errorf("Record(decision %q) = %v, want ErrDecision", d, err)
		}
	}
	if err := db.Record(context.Background(), audit.Entry{Decision: audit.DecisionAskTimeout}); err != nil {
		t.Errorf("Record(ask_timeout) = %v", err)
	}
	got, _ := db.Query(context.Background(), audit.Query{})
	if len(got) != 1 || time.Since(got[0].Time) > time.Minute {
		t.Errorf("a zero Time should be recorded as now, got %+v", got)
	}
}

func TestQueryFilters(t *testing.T) {
	dir := t.TempDir()
	db, err := audit.Open(filepath.Join(dir, "audit.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	t.Chdir(dir)
	rows := []audit.Entry{
		{Time: base, Chat: "a.md", Action: "a0", Decision: audit.DecisionAllow},
		{Time: base.Add(time.Minute), Chat: filepath.Join(dir, "a.md"), Action: "a1", Decision: audit.DecisionDeny},
		{Time: base.Add(2 * time.Minute), Chat: "b.md", Action: "b2", Decision: audit.DecisionAskDenied},
		{Time: base.Add(3 * time.Minute), Chat: "./a.md", Action: "a3", Decision: audit.DecisionAskTimeout},
		{Time: base.Add(3 * time.Minute), Chat: "b.md", Action: "b3", Decision: audit.DecisionAllow},
	}
	for _, e := range rows {
		if err := db.Record(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    audit.Query
		want []string
	}{
		{"all, newest first", audit.Query{}, []string{"b3", "a3", "b2", "a1", "a0"}},
		{"relative chat path", audit.Query{Chat: "a.md"}, []string{"a3", "a1", "a0"}},
		{"absolute chat path", audit.Query{Chat: filepath.Join(dir, "b.md")}, []string{"b3", "b2"}},
		{"since", audit.Query{Since: base.Add(2 * time.Minute)}, []string{"b3", "a3", "b2"}},
		{"chat and since", audit.Query{Chat: "a.md", Since: base.Add(30 * time.Second)}, []string{"a3", "a1"}},
		{"limit", audit.Query{Limit: 2}, []string{"b3", "a3"}},
		{"unknown chat", audit.Query{Chat: "c.md"}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Query(context.Background(), tc.q)
			if err != nil {
				t.Fatal(err)
			}
			actions := []string{}
			for _, e := range got {
				actions = append(actions, e.Action)
				if !filepath.IsAbs(e.Chat) {
					t.Errorf("stored chat %q is not absolute", e.Chat)
				}
			}
			if !reflect.DeepEqual(actions, tc.want) {
				t.Errorf("Query(%+v) = %q, want %q", tc.q, actions, tc.want)
			}
		})
	}
}

func TestConcurrentHandles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.sqlite")
	const writers = 8
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			errs[w] = writeRows(path, w)
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkRows(t, path, writers)
}

func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "audit.sqlite")
	const writers = 8
	cmds := make([]*exec.Cmd, writers)
	outs := make([]*bytes.Buffer, writers)
	for w := range cmds {
		cmds[w] = exec.Command(exe, "-test.run=^$")
		cmds[w].Env = append(os.Environ(), helperEnv+"="+path+"|"+strconv.Itoa(w))
		outs[w] = &bytes.Buffer{}
		cmds[w].Stdout, cmds[w].Stderr = outs[w], outs[w]
		if err := cmds[w].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for w, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Errorf("writer process %d: %v\n%s", w, err, outs[w])
		}
	}
	checkRows(t, path, writers)
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain-file")
	os.WriteFile(file, []byte("not a folder"), 0o644)
	notDB := filepath.Join(dir, "not-a-db.sqlite")
	os.WriteFile(notDB, bytes.Repeat([]byte("garbage!"), 512), 0o644)
	tests := []struct {
		name, path, want string
	}{
		{"empty path", "", "no database path"},
		{"parent is a file", filepath.Join(file, "audit.sqlite"), "cannot create the folder"},
		{"path is a folder", dir, "is a folder"},
		{"not a database", notDB, "cannot use"},
		{"unwritable file system", "/proc/vibing-audit-test/audit.sqlite", "cannot create the folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			db, err := audit.Open(tc.path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded, want an error", tc.path)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open(%q) = %q, want it to say %q", tc.path, err, tc.want)
			}
		})
	}
}

// A database made before input_sha256 and edited existed gains them on open;
// its old rows read as "" and false.
func TestMigrateAddsApprovalColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL,
		chat TEXT NOT NULL DEFAULT '', session_id TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '',
		action TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL, rule TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '');
		INSERT INTO audit (time_ns, tool, decision) VALUES (1, 'Bash', 'allow');`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := audit.Open(path)
	if err != nil {
		t.Fatalf("Open(old database) = %v", err)
	}
	defer db.Close()
	sum := strings.Repeat("ab", 32)
	if err := db.Record(context.Background(), audit.Entry{Tool: "Write", Decision: audit.DecisionAskApproved, InputSHA256: sum, Edited: true}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(context.Background(), audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].InputSHA256 != sum || !rows[0].Edited || rows[1].InputSHA256 != "" || rows[1].Edited {
		t.Errorf("rows = %+v, want the new row with its SHA-256 and edited, the old one without", rows)
	}
}

// A database whose rows named who decided as their source (hook, mention)
// gains the via column on open: those rows move it there, and the others
// keep their source.
func TestMigrateMovesViaOutOfSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL,
		chat TEXT NOT NULL DEFAULT '', session_id TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '',
		action TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL, rule TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '');
		INSERT INTO audit (time_ns, tool, decision, rule, source) VALUES (1, 'Read', 'deny', 'Read(.env)', 'hook');
		INSERT INTO audit (time_ns, tool, decision, rule, source) VALUES (2, 'Read', 'deny', 'Read(.env)', 'mention');
		INSERT INTO audit (time_ns, tool, decision, rule, source) VALUES (3, 'Read', 'deny', 'Read(.env)', 'deny_list');`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second open finds the column: nothing moves again
		db, err := audit.Open(path)
		if err != nil {
			t.Fatalf("Open(old database) = %v", err)
		}
		rows, err := db.Query(context.Background(), audit.Query{})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, r.Source+"/"+r.Via)
		}
		if strings.Join(got, " ") != "deny_list/ /mention /hook" {
			t.Errorf("source/via of the rows, newest first = %q, want deny_list/, /mention, /hook", got)
		}
	}
}

// TestKeyRewritesRow checks that an ask_pending row gets its outcome in
// place: one row per call, whatever the number of writes.
func TestKeyRewritesRow(t *testing.T) {
	db, err := audit.Open(filepath.Join(t.TempDir(), "audit.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	steps := []audit.Entry{
		{Key: "run1:t1", Tool: "Bash", Action: "tool:Bash:make", Decision: audit.DecisionAskPending, Reason: "asked"},
		{Key: "run1:t2", Tool: "Bash", Action: "tool:Bash:ls", Decision: audit.DecisionAllow},
		{Key: "run1:t1", Tool: "Bash", Action: "tool:Bash:make", Decision: audit.DecisionAskApproved, Reason: "approved"},
		{Tool: "Bash", Action: "no key", Decision: audit.DecisionDeny},
		{Tool: "Bash", Action: "no key", Decision: audit.DecisionDeny},
	}
	for _, e := range steps {
		if err := db.Record(ctx, e); err != nil {
			t.Fatalf("Record(%+v) = %v", e, err)
		}
	}
	got, err := db.Query(ctx, audit.Query{})
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, e := range got {
		rows = append(rows, e.Action+"="+e.Decision)
	}
	want := []string{"no key=deny", "no key=deny", "tool:Bash:make=ask_approved", "tool:Bash:ls=allow"}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows = %q, want %q", rows, want)
	}
}

// TestOpenAddsCallKey opens a database made before rows had a call key.
func TestOpenAddsCallKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL,
		chat TEXT NOT NULL DEFAULT '', session_id TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '',
		action TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL, rule TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '');
		INSERT INTO audit (time_ns, decision, action) VALUES (1, 'allow', 'old row');`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // the second open finds the column in place
		db, err := audit.Open(path)
		if err != nil {
			t.Fatalf("Open(old database) = %v", err)
		}
		if err := db.Record(context.Background(), audit.Entry{Key: "k", Decision: audit.DecisionAskPending}); err != nil {
			t.Fatalf("Record = %v", err)
		}
		if err := db.Record(context.Background(), audit.Entry{Key: "k", Decision: audit.DecisionAskDenied}); err != nil {
			t.Fatalf("Record = %v", err)
		}
		got, _ := db.Query(context.Background(), audit.Query{})
		if len(got) != 2 || got[0].Decision != audit.DecisionAskDenied {
			t.Errorf("rows = %+v, want the old row and one ask_denied", got)
		}
		db.Close()
	}
}

// A database made before resumed and cwd existed (the schema with call_key,
// input_sha256 and edited) gains them on open: its old rows read as "not
// recorded" (nil, ""), new rows keep what their writer said, also when a
// keyed row is rewritten, and a second open finds the columns in place.
func TestMigrateAddsReplayColumns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.sqlite")
	old, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = old.Exec(`CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, time_ns INTEGER NOT NULL,
		chat TEXT NOT NULL DEFAULT '', session_id TEXT NOT NULL DEFAULT '', tool TEXT NOT NULL DEFAULT '',
		action TEXT NOT NULL DEFAULT '', decision TEXT NOT NULL, rule TEXT NOT NULL DEFAULT '',
		source TEXT NOT NULL DEFAULT '', reason TEXT NOT NULL DEFAULT '', call_key TEXT,
		input_sha256 TEXT NOT NULL DEFAULT '', edited INTEGER NOT NULL DEFAULT 0);
		INSERT INTO audit (time_ns, action, decision) VALUES (1, 'old', 'allow');`)
	old.Close()
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	writes := []audit.Entry{
		{Time: time.Unix(2, 0), Action: "resumed", Decision: audit.DecisionDeny, Resumed: &yes, Cwd: "/p/one"},
		{Time: time.Unix(3, 0), Action: "fresh", Decision: audit.DecisionAllow, Resumed: &no, Cwd: "/p/two"},
		{Time: time.Unix(4, 0), Action: "unsaid", Decision: audit.DecisionAllow},
		{Time: time.Unix(5, 0), Action: "keyed", Decision: audit.DecisionAskPending, Key: "k", Resumed: &no, Cwd: "/p/a"},
		{Time: time.Unix(5, 0), Action: "keyed", Decision: audit.DecisionAskApproved, Key: "k", Resumed: &no, Cwd: "/p/b"},
	}
	tests := []struct {
		action  string
		resumed *bool
		cwd     string
	}{
		{"keyed", &no, "/p/b"},
		{"unsaid", nil, ""},
		{"fresh", &no, "/p/two"},
		{"resumed", &yes, "/p/one"},
		{"old", nil, ""},
	}
	for open := 0; open < 2; open++ {
		db, err := audit.Open(path)
		if err != nil {
			t.Fatalf("Open(old database) = %v", err)
		}
		if open == 0 {
			for _, e := range writes {
				if err := db.Record(context.Background(), e); err != nil {
					t.Fatalf("Record(%s) = %v", e.Action, err)
				}
			}
		}
		rows, err := db.Query(context.Background(), audit.Query{})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != len(tests) {
			t.Fatalf("open %d: %d rows, want %d: %+v", open, len(rows), len(tests), rows)
		}
		for i, tt := range tests {
			r := rows[i]
			if r.Action != tt.action || !reflect.DeepEqual(r.Resumed, tt.resumed) || r.Cwd != tt.cwd {
				t.Errorf("open %d, row %d: %s resumed=%v cwd=%q, want %s resumed=%v cwd=%q", open, i,
					r.Action, show(r.Resumed), r.Cwd, tt.action, show(tt.resumed), tt.cwd)
			}
		}
	}
}

func show(b *bool) string {
	if b == nil {
		return "unrecorded"
	}
	return strconv.FormatBool(*b)
}
