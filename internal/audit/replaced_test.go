package audit_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibing/internal/audit"
)

// The database file is deleted or replaced while a handle is open (between
// two turns of a live run): the next row must land in the file at the
// path, or Record must fail, never go into the unlinked file.
func TestRecordFollowsReplacedFile(t *testing.T) {
	tests := []struct {
		name    string
		replace func(t *testing.T, path string)
		want    []string // the actions at path afterwards, oldest first; nil: Record fails
	}{
		{"removed", func(t *testing.T, path string) {
			mustDo(t, os.Remove(path))
		}, []string{"after"}},
		{"removed with its WAL and shm", func(t *testing.T, path string) {
			for _, p := range []string{path, path + "-wal", path + "-shm"} {
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					t.Fatal(err)
				}
			}
		}, []string{"after"}},
		{"another database renamed over it", func(t *testing.T, path string) {
			other := filepath.Join(filepath.Dir(path), "other.sqlite")
			db, err := audit.Open(other)
			mustDo(t, err)
			mustDo(t, db.Record(context.Background(), audit.Entry{Action: "other", Decision: audit.DecisionDeny}))
			mustDo(t, db.Close())
			mustDo(t, os.Rename(other, path))
		}, []string{"other", "after"}},
		{"moved away", func(t *testing.T, path string) {
			mustDo(t, os.Rename(path, path+".old"))
		}, []string{"after"}},
		{"a folder in its place", func(t *testing.T, path string) {
			mustDo(t, os.Remove(path))
			mustDo(t, os.Mkdir(path, 0o700))
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.sqlite")
			db, err := audit.Open(path)
			mustDo(t, err)
			defer db.Close()
			ctx := context.Background()
			mustDo(t, db.Record(ctx, audit.Entry{Action: "before", Decision: audit.DecisionAllow}))
			tt.replace(t, path)
			err = db.Record(ctx, audit.Entry{Action: "after", Decision: audit.DecisionAllow})
			if tt.want == nil {
				if err == nil {
					t.Fatalf("Record with a folder at %s succeeded, want an error", path)
				}
				if !strings.Contains(err.Error(), "is a folder") {
					t.Errorf("Record = %q, want it to say the path is a folder", err)
				}
				return
			}
			mustDo(t, err)
			if got := actionsAt(t, path); !slices.Equal(got, tt.want) {
				t.Errorf("rows in the file at the path: %q, want %q", got, tt.want)
			}
			// the open handle reads the file at the path too
			rows, err := db.Query(ctx, audit.Query{})
			mustDo(t, err)
			if len(rows) != len(tt.want) {
				t.Errorf("Query on the open handle returned %d rows, want %d", len(rows), len(tt.want))
			}
		})
	}
}

// actionsAt reads the rows of the database file at path with a handle of
// its own, oldest first.
func actionsAt(t *testing.T, path string) []string {
	t.Helper()
	db, err := audit.Open(path)
	mustDo(t, err)
	defer db.Close()
	rows, err := db.Query(context.Background(), audit.Query{})
	mustDo(t, err)
	var out []string
	for i := len(rows) - 1; i >= 0; i-- {
		out = append(out, rows[i].Action)
	}
	return out
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lineWriterEnv makes the test binary a second writing process (see
// writeLines): the database's path.
const lineWriterEnv = "VIBING_AUDIT_LINE_WRITER"

// writeLines holds the database at path open and records one row per line
// of stdin, the line its action, answering "ok" or the error.
func writeLines(path string) error {
	db, err := audit.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		answer := "ok"
		if err := db.Record(context.Background(), audit.Entry{Action: sc.Text(), Decision: audit.DecisionAllow}); err != nil {
			answer = strings.ReplaceAll(err.Error(), "\n", " ")
		}
		fmt.Println(answer)
	}
	return sc.Err()
}

// Two processes hold the database open when its file is removed or
// replaced. The log and its index are named for the path: whichever
// process writes next must neither lay the old file's log over the new
// database nor share an index with the other one, and no row of either may
// go missing.
func TestReplacedUnderTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process")
	}
	exe, err := os.Executable()
	mustDo(t, err)
	tests := []struct {
		name      string
		replace   func(path string) error
		atPath    []string // rows at the path afterwards, oldest first
		movedAway []string // rows of the file renamed to path+".old"
	}{
		{"file removed", func(path string) error { return os.Remove(path) },
			[]string{"a2", "b2", "a3", "b3"}, nil},
		{"file, log and index removed", func(path string) error {
			for _, sfx := range []string{"", "-wal", "-shm"} {
				if err := os.Remove(path + sfx); err != nil {
					return err
				}
			}
			return nil
		}, []string{"a2", "b2", "a3", "b3"}, nil},
		{"file renamed away", func(path string) error { return os.Rename(path, path+".old") },
			[]string{"a2", "b2", "a3", "b3"}, []string{"a1", "b1"}},
		{"another database renamed over it", func(path string) error {
			other := filepath.Join(filepath.Dir(path), "other.sqlite")
			db, err := audit.Open(other)
			if err != nil {
				return err
			}
			if err := db.Record(context.Background(), audit.Entry{Action: "other", Decision: audit.DecisionDeny}); err != nil {
				return err
			}
			if err := db.Close(); err != nil {
				return err
			}
			return os.Rename(other, path)
		}, []string{"other", "a2", "b2", "a3", "b3"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.sqlite")
			a, err := audit.Open(path)
			mustDo(t, err)
			defer a.Close()
			b := exec.Command(exe, "-test.run=^$")
			b.Env = append(os.Environ(), lineWriterEnv+"="+path)
			b.Stderr = os.Stderr
			in, err := b.StdinPipe()
			mustDo(t, err)
			out, err := b.StdoutPipe()
			mustDo(t, err)
			mustDo(t, b.Start())
			answers := bufio.NewScanner(out)
			record := map[string]func(string) error{
				"a": func(action string) error {
					return a.Record(context.Background(), audit.Entry{Action: action, Decision: audit.DecisionAllow})
				},
				"b": func(action string) error {
					fmt.Fprintln(in, action)
					if !answers.Scan() {
						return errors.New("the second process ended")
					}
					if answers.Text() != "ok" {
						return errors.New(answers.Text())
					}
					return nil
				},
			}
			for i, step := range []string{"a1", "b1", "replace", "a2", "b2", "a3", "b3"} {
				if step == "replace" {
					mustDo(t, tt.replace(path))
					continue
				}
				if err := record[step[:1]](step); err != nil {
					t.Fatalf("step %d, row %s: %v", i, step, err)
				}
			}
			in.Close()
			mustDo(t, b.Wait())
			mustDo(t, a.Close())
			if got := actionsAt(t, path); !slices.Equal(got, tt.atPath) {
				t.Errorf("rows at the path: %q, want %q", got, tt.atPath)
			}
			if tt.movedAway != nil {
				if got := actionsAt(t, path+".old"); !slices.Equal(got, tt.movedAway) {
					t.Errorf("rows of the file renamed away: %q, want %q", got, tt.movedAway)
				}
			}
		})
	}
}
