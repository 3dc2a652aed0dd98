package auditspool_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"vibing/internal/auditspool"
)

func TestAppendThenImport(t *testing.T) {
	dir := t.TempDir()
	spool := auditspool.For(filepath.Join(dir, "state", "audit.sqlite"))
	for i, d := range []string{"allow", "deny", "ask", "defer"} {
		if err := auditspool.Append(spool, auditspool.Entry{Decision: d, Tool: "Bash", SessionID: fmt.Sprint("s", i), Source: "hook"}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(spool)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("spool mode = %v, want 0600", fi.Mode().Perm())
	}
	var got []string
	n, err := auditspool.Import(spool, func(es []auditspool.Entry) error {
		for _, e := range es {
			if e.Time.IsZero() {
				t.Errorf("entry %+v has no time", e)
			}
			got = append(got, e.Decision)
		}
		return nil
	})
	if err != nil || n != 4 || strings.Join(got, ",") != "allow,deny,ask,defer" {
		t.Fatalf("Import = %d %v, got %v; want 4 entries in order", n, err, got)
	}
	if left, _ := filepath.Glob(spool + "*"); len(left) != 0 {
		t.Errorf("files left after import: %v", left)
	}
	if n, err := auditspool.Import(spool, func([]auditspool.Entry) error { return nil }); n != 0 || err != nil {
		t.Errorf("second Import = %d %v, want 0 nil", n, err)
	}
}

func TestImportKeepsWhatItCouldNotRecord(t *testing.T) {
	spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
	if err := auditspool.Append(spool, auditspool.Entry{Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("database is locked")
	if _, err := auditspool.Import(spool, func([]auditspool.Entry) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Import error = %v, want %v", err, boom)
	}
	if err := auditspool.Append(spool, auditspool.Entry{Decision: "allow"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	n, err := auditspool.Import(spool, func(es []auditspool.Entry) error {
		for _, e := range es {
			got = append(got, e.Decision)
		}
		return nil
	})
	if err != nil || n != 2 || strings.Join(got, ",") != "deny,allow" {
		t.Errorf("retry Import = %d %v %v, want deny,allow", n, err, got)
	}
}

func TestImportKeepsUnreadableLines(t *testing.T) {
	spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
	if err := auditspool.Append(spool, auditspool.Entry{Decision: "deny"}); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(spool, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"decision":"al` + "\n")
	f.Close()
	n, err := auditspool.Import(spool, func([]auditspool.Entry) error { return nil })
	if n != 1 || !errors.Is(err, auditspool.ErrUnreadable) || !strings.Contains(err.Error(), "lines [2]") {
		t.Errorf("Import = %d %v, want 1 and ErrUnreadable naming line 2", n, err)
	}
	if kept, _ := filepath.Glob(spool + ".unreadable-*"); len(kept) != 1 {
		t.Errorf("unreadable spool kept = %v, want one file", kept)
	}
}

func TestAppendFailsWhereItCannotWrite(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o600)
	if err := auditspool.Append(filepath.Join(blocker, "audit.sqlite.hook-spool"), auditspool.Entry{Decision: "allow"}); err == nil {
		t.Error("Append under a file succeeded, want an error")
	}
}

// Writers and importers at once lose no line and import none twice.
func TestConcurrentAppendAndImport(t *testing.T) {
	spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
	const writers, each = 8, 50
	var mu sync.Mutex
	var got []string
	record := func(es []auditspool.Entry) error {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range es {
			got = append(got, e.Reason)
		}
		return nil
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var imp sync.WaitGroup
	for i := 0; i < 2; i++ {
		imp.Add(1)
		go func() {
			defer imp.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := auditspool.Import(spool, record); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := auditspool.Append(spool, auditspool.Entry{Decision: "allow", Reason: fmt.Sprintf("%d-%d", w, i)}); err != nil {
					t.Error(err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(stop)
	imp.Wait()
	if _, err := auditspool.Import(spool, record); err != nil {
		t.Fatal(err)
	}
	sort.Strings(got)
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r] {
			t.Errorf("entry %s imported twice", r)
		}
		seen[r] = true
	}
	if len(seen) != writers*each {
		t.Errorf("imported %d distinct entries, want %d", len(seen), writers*each)
	}
}

// A spooled row keeps whether it was decided in a resumed session and its
// working directory; a line of an older hook, without them, reads as
// unrecorded (nil, "").
func TestSpoolKeepsReplayFields(t *testing.T) {
	spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
	no := false
	if err := auditspool.Append(spool, auditspool.Entry{Decision: "ask_cli", Resumed: &no, Cwd: "/proj"}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(spool, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-01-02T03:04:05Z","decision":"allow"}` + "\n") // an older hook's line
	f.Close()
	var got []auditspool.Entry
	if _, err := auditspool.Import(spool, func(es []auditspool.Entry) error { got = append(got, es...); return nil }); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		decision string
		resumed  string
		cwd      string
	}{
		{"ask_cli", "false", "/proj"},
		{"allow", "unrecorded", ""},
	}
	if len(got) != len(tests) {
		t.Fatalf("imported %+v, want %d rows", got, len(tests))
	}
	for i, tt := range tests {
		r := "unrecorded"
		if got[i].Resumed != nil {
			r = fmt.Sprint(*got[i].Resumed)
		}
		if got[i].Decision != tt.decision || r != tt.resumed || got[i].Cwd != tt.cwd {
			t.Errorf("row %d = %s resumed=%s cwd=%q, want %s resumed=%s cwd=%q", i, got[i].Decision, r, got[i].Cwd, tt.decision, tt.resumed, tt.cwd)
		}
	}
}
