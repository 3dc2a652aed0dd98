package run_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vibing/internal/audit"
	"vibing/internal/run"
	"vibing/internal/runtest"
)

// faultHelperEnv makes the test binary run one fault case in a private
// mount namespace (see runInNamespace): "<case>|<dir>".
const faultHelperEnv = "VIBING_AUDIT_FAULT_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(faultHelperEnv); spec != "" {
		name, dir, _ := strings.Cut(spec, "|")
		rep, err := faultRun(name, dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		_ = json.NewEncoder(os.Stdout).Encode(rep)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// dbRecorder writes the runner's rows to a real audit database.
type dbRecorder struct{ db *audit.DB }

func (r dbRecorder) Record(ctx context.Context, e run.AuditEntry) error {
	return r.db.Record(ctx, audit.Entry{Time: e.Time, Chat: e.Chat, SessionID: e.SessionID, Tool: e.Tool,
		Action: e.Action, Decision: e.Decision, Rule: e.Rule, Source: e.Source, Reason: e.Reason, Key: e.Key})
}

// callBackend asks for its calls one at a time, as the CLI does: the next
// request goes out once the previous one is answered. before(i) runs
// before call i is asked.
type callBackend struct {
	calls  []string
	before func(i int)
	events chan run.Event

	mu       sync.Mutex
	verdicts map[string]run.Verdict
}

func (b *callBackend) Start(context.Context, run.Turn) (run.Conn, error) {
	b.events = make(chan run.Event, 16)
	b.verdicts = map[string]run.Verdict{}
	go func() {
		defer close(b.events)
		b.events <- run.Event{Kind: run.KindSession, SessionID: "s1"}
		for i, c := range b.calls {
			if b.before != nil {
				b.before(i)
			}
			got := make(chan struct{})
			id := fmt.Sprintf("t%d", i)
			b.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "req-" + id, ToolUseID: id,
				Tool: "Bash", Input: map[string]any{"command": c}, Reply: func(v run.Verdict) {
					b.mu.Lock()
					b.verdicts[c] = v
					b.mu.Unlock()
					close(got)
				}}}
			<-got
		}
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s1"}
	}()
	return b, nil
}
func (b *callBackend) Events() <-chan run.Event { return b.events }
func (b *callBackend) Interrupt() error         { return nil }
func (b *callBackend) Kill()                    {}

// faultReport is what one fault case saw.
type faultReport struct {
	Allowed  []string          // commands the backend was allowed to run
	Refused  map[string]string // command -> the denial message
	Notices  []string
	Rows     map[string]string // action -> decision, read after the fault was lifted
	RowsRead bool              // false when the database could not be read back
	OpenErr  string            // the database could not be opened: the run does not start
}

// atOpen lists the faults already there when the run opens the database.
var atOpen = map[string]bool{"corrupt": true, "read-only": true}

// faultRun runs three calls ("ls" allowed, fault, "ls 2" allowed, "ask 3"
// answered allow_once) against a real audit database in dir, with the
// fault injected before the second call.
func faultRun(name, dir string) (*faultReport, error) {
	path := filepath.Join(dir, "db", "audit.sqlite")
	var lift func() error
	var injectErr error
	rep := &faultReport{Refused: map[string]string{}, Rows: map[string]string{}}
	if atOpen[name] {
		if err := seed(path); err != nil {
			return nil, err
		}
		if lift, injectErr = inject(name, path); injectErr != nil {
			return nil, fmt.Errorf("inject %s: %w", name, injectErr)
		}
	}
	db, err := audit.OpenWith(path, audit.Options{BusyTimeout: 200 * time.Millisecond, RetryFor: 300 * time.Millisecond})
	if err != nil {
		rep.OpenErr = err.Error()
		return rep, nil
	}
	be := &callBackend{calls: []string{"ls", "ls 2", "ask 3"}, before: func(i int) {
		if i == 1 && !atOpen[name] {
			lift, injectErr = inject(name, path)
		}
	}}
	r := &run.Runner{Backend: be, Engine: askBash{}, Audit: dbRecorder{db}, Chat: filepath.Join(dir, "chat.md"),
		ApprovalTimeout: 5 * time.Second}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var o run.Output
			_ = json.Unmarshal(sc.Bytes(), &o)
			switch o.Type {
			case "notice":
				rep.Notices = append(rep.Notices, o.Message)
			case "approval_request":
				go inW.Write([]byte(`{"type":"approval_response","id":"` + o.ID + `","decision":"allow_once"}` + "\n"))
			}
		}
	}()
	go inW.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
	runErr := r.Run(context.Background(), inR, outW)
	outW.Close()
	<-done
	inW.Close()
	db.Close()
	if injectErr != nil {
		return nil, fmt.Errorf("inject %s: %w", name, injectErr)
	}
	if runErr != nil {
		return nil, fmt.Errorf("run: %w", runErr)
	}
	for c, v := range be.verdicts {
		if v.Allow {
			rep.Allowed = append(rep.Allowed, c)
		} else {
			rep.Refused[c] = v.Message
		}
	}
	if lift != nil {
		if err := lift(); err != nil {
			return nil, fmt.Errorf("lift %s: %w", name, err)
		}
	}
	if db, err := audit.Open(path); err == nil {
		if rows, err := db.Query(context.Background(), audit.Query{}); err == nil {
			rep.RowsRead = true
			for _, e := range rows {
				rep.Rows[strings.TrimPrefix(e.Action, "tool:Bash:")] = e.Decision
			}
		}
		db.Close()
	}
	return rep, nil
}

// seed creates the database with one row, checkpointed into the main file.
func seed(path string) error {
	db, err := audit.Open(path)
	if err != nil {
		return err
	}
	if err := db.Record(context.Background(), audit.Entry{Action: "tool:Bash:seed", Decision: audit.DecisionAllow}); err != nil {
		return err
	}
	return db.Close()
}

// inject breaks the database at path; the returned function mends it
// where that is possible.
func inject(name, path string) (func() error, error) {
	dir := filepath.Dir(path)
	switch name {
	case "none":
		return nil, nil
	case "locked":
		// Another process holds the write lock longer than the busy
		// timeout and the retries.
		other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(1000)&_txlock=immediate")
		if err != nil {
			return nil, err
		}
		tx, err := other.Begin()
		if err != nil {
			return nil, err
		}
		if _, err := tx.Exec(`INSERT INTO audit (time_ns, decision, action) VALUES (0, 'allow', 'tool:Bash:other writer')`); err != nil {
			return nil, err
		}
		return func() error { tx.Rollback(); return other.Close() }, nil
	case "read-only", "read-only-mid":
		// The database's folder turns read-only (a read-only bind mount).
		// Mid-run the open descriptors keep writing: no row is lost.
		if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
			return nil, err
		}
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
			return nil, err
		}
		return func() error { return syscall.Unmount(dir, 0) }, nil
	case "full":
		// The file system fills up (the folder is a small tmpfs).
		f, err := os.Create(filepath.Join(dir, "filler"))
		if err != nil {
			return nil, err
		}
		defer f.Close()
		buf := make([]byte, 64<<10)
		for {
			if _, err := f.Write(buf); err != nil {
				if errors.Is(err, syscall.ENOSPC) {
					break
				}
				return nil, err
			}
		}
		f.Sync()
		return func() error { return os.Remove(filepath.Join(dir, "filler")) }, nil
	case "removed":
		// The person deletes the database between two calls.
		return nil, os.Remove(path)
	case "replaced":
		// Another database is renamed over it (restored from a backup).
		other := filepath.Join(dir, "other.sqlite")
		db, err := audit.Open(other)
		if err != nil {
			return nil, err
		}
		if err := db.Record(context.Background(), audit.Entry{Action: "tool:Bash:other", Decision: audit.DecisionDeny}); err != nil {
			return nil, err
		}
		if err := db.Close(); err != nil {
			return nil, err
		}
		return nil, os.Rename(other, path)
	case "folder":
		// The database is moved aside and a folder takes its path: it
		// cannot be opened again there.
		if err := os.Rename(path, path+".kept"); err != nil {
			return nil, err
		}
		return func() error {
			if err := os.Remove(path); err != nil {
				return err
			}
			return os.Rename(path+".kept", path)
		}, os.Mkdir(path, 0o700)
	case "corrupt":
		// Every page but the first (the schema) is overwritten with
		// garbage: the file opens, the table's pages do not read.
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for i := 4096; i < len(data); i++ {
			data[i] = byte(i*7 + 13)
		}
		return nil, os.WriteFile(path, data, 0o644)
	}
	return nil, fmt.Errorf("unknown fault %q", name)
}

// runInNamespace runs faultRun in a child process with a private mount
// namespace, the database's folder a 256 KiB tmpfs.
func runInNamespace(t *testing.T, name string) *faultReport {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for a private mount namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare(1)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "db")
	if err := os.Mkdir(db, 0o700); err != nil {
		t.Fatal(err)
	}
	script := `mount -t tmpfs -o size=256k tmpfs "$1" && exec "$2" -test.run='^$'`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", db, exe)
	cmd.Env = append(os.Environ(), faultHelperEnv+"="+name+"|"+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fault helper %s: %v\n%s", name, err, stderr.String())
	}
	var rep faultReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("fault helper %s printed %q: %v", name, out, err)
	}
	return &rep
}

// TestAuditFailsClosed breaks the audit database in the middle of a run and
// checks that no call runs without its row: every allowed call has a row
// (counted after the fault is lifted), every call after the fault is
// refused with a sentence that says why, and the person is told.
func TestAuditFailsClosed(t *testing.T) {
	tests := []struct {
		name      string
		namespace bool
		want      []string // the calls that run
	}{
		{"none", false, []string{"ls", "ls 2", "ask 3"}},
		{"locked", false, []string{"ls"}},
		{"full", true, []string{"ls"}},
		{"read-only-mid", true, []string{"ls", "ls 2", "ask 3"}}, // open descriptors still write
		{"read-only", true, nil},                                 // the run does not start
		{"corrupt", false, nil},
		// the file at audit_path is no longer the one the run opened: the
		// next rows go to the file at the path, or the calls are refused
		{"removed", false, []string{"ls", "ls 2", "ask 3"}},
		{"replaced", false, []string{"ls", "ls 2", "ask 3"}},
		{"folder", false, []string{"ls"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rep *faultReport
			if tt.namespace {
				rep = runInNamespace(t, tt.name)
			} else {
				var err error
				dir := t.TempDir()
				os.Mkdir(filepath.Join(dir, "db"), 0o700)
				if rep, err = faultRun(tt.name, dir); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("allowed %v, refused %v, notices %q, rows %v, open error %q", rep.Allowed, rep.Refused, rep.Notices, rep.Rows, rep.OpenErr)
			if tt.name == "read-only" {
				if rep.OpenErr == "" {
					t.Errorf("a read-only audit database opened; the run would start")
				}
				return
			}
			for _, c := range rep.Allowed {
				if c == "ls" && (tt.name == "removed" || tt.name == "replaced") {
					continue // its row left with the file the person removed
				}
				if !rep.RowsRead {
					t.Errorf("%q ran, but the database cannot be read back", c)
					continue
				}
				want := map[bool]string{true: "ask_approved", false: "allow"}[strings.HasPrefix(c, "ask")]
				if rep.Rows[c] != want {
					t.Errorf("%q ran with audit row %q, want %q", c, rep.Rows[c], want)
				}
			}
			if tt.name == "replaced" && rep.Rows["other"] != audit.DecisionDeny {
				t.Errorf("the row of the database renamed over the path reads %q, want deny (rows %v)", rep.Rows["other"], rep.Rows)
			}
			slices.Sort(rep.Allowed)
			if want := slices.Sorted(slices.Values(tt.want)); !slices.Equal(rep.Allowed, want) {
				t.Errorf("allowed %v, want %v", rep.Allowed, want)
			}
			if len(tt.want) == 3 {
				if len(rep.Notices) != 0 {
					t.Errorf("notices %q, want none", rep.Notices)
				}
				return
			}
			for _, c := range []string{"ls", "ls 2", "ask 3"} {
				if slices.Contains(tt.want, c) {
					continue
				}
				if msg := rep.Refused[c]; !strings.Contains(msg, "could not write this call's audit row, so it is refused") {
					t.Errorf("%q answered %q, want a refusal naming the audit row", c, msg)
				}
			}
			if len(rep.Notices) == 0 || !strings.Contains(strings.Join(rep.Notices, "\n"), "audit row could not be written") {
				t.Errorf("notices %q, want one saying the audit row could not be written", rep.Notices)
			}
		})
	}
}

// slowRecorder blocks every write until release is closed.
type slowRecorder struct {
	release chan struct{}
	mem     runtest.Audit
}

func (r *slowRecorder) Record(ctx context.Context, e run.AuditEntry) error {
	<-r.release
	return r.mem.Record(ctx, e)
}

// TestSlowAuditLeavesLoopFree checks that a database that takes its time
// holds up neither the approval prompt nor its timeout.
func TestSlowAuditLeavesLoopFree(t *testing.T) {
	be := &chanBackend{events: make(chan run.Event, 4)}
	rec := &slowRecorder{release: make(chan struct{})}
	replied := make(chan run.Verdict, 1)
	be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "r1", ToolUseID: "t1", Tool: "Bash",
		Input: map[string]any{"command": "ask deploy"}, Reply: func(v run.Verdict) { replied <- v }}}
	r := &run.Runner{Backend: be, Engine: askBash{}, Audit: rec, ApprovalTimeout: 300 * time.Millisecond}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go inW.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
	ended := make(chan struct{})
	go func() { r.Run(context.Background(), inR, outW); outW.Close(); close(ended) }()
	sc := bufio.NewScanner(outR)
	start := time.Now()
	var seen []string
	for sc.Scan() && len(seen) < 3 {
		var o run.Output
		_ = json.Unmarshal(sc.Bytes(), &o)
		seen = append(seen, o.Type+"@"+time.Since(start).Round(100*time.Millisecond).String())
		if o.Type == "approval_resolved" {
			break
		}
	}
	// The rows are still blocked; the prompt and its timeout came anyway.
	if want := []string{"decision@0s", "approval_request@0s", "approval_resolved@300ms"}; !slices.Equal(seen, want) {
		t.Errorf("events %v while the audit write was blocked, want %v", seen, want)
	}
	close(rec.release)
	v := <-replied
	if v.Allow || !strings.Contains(v.Message, "timed out") {
		t.Errorf("verdict %+v, want the timeout denial", v)
	}
	close(be.events)
	go io.Copy(io.Discard, outR)
	inW.Close()
	<-ended // the run waits for its rows before it returns
	if got := rec.mem.Outcomes(); !slices.Equal(got, []string{"ask_timeout: Approval timed out after 0 s"}) {
		t.Errorf("rows %q, want one ask_timeout", got)
	}
}
