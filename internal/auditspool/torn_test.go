package auditspool_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibing/internal/auditspool"
)

// A writer killed mid-line leaves the spool without its last newline. The
// next row must not be glued to the torn one (and lost with it): every row
// that was written whole is imported, and the torn line is reported and
// kept.
func TestTornLineLosesNoRow(t *testing.T) {
	appendRow := func(reason string) func(t *testing.T, spool string) {
		return func(t *testing.T, spool string) {
			if err := auditspool.Append(spool, auditspool.Entry{Decision: "allow", Reason: reason}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// cut takes n bytes off the spool's end: the last row torn mid-line.
	cut := func(n int64) func(t *testing.T, spool string) {
		return func(t *testing.T, spool string) {
			fi, err := os.Stat(spool)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(spool, fi.Size()-n); err != nil {
				t.Fatal(err)
			}
		}
	}
	// raw writes bytes as they are (a writer of an older vibing-agent).
	raw := func(s string) func(t *testing.T, spool string) {
		return func(t *testing.T, spool string) {
			f, err := os.OpenFile(spool, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	tests := []struct {
		name      string
		steps     []func(t *testing.T, spool string)
		want      []string // the reasons imported, in order
		tornLines string   // the lines reported, as ErrUnreadable names them ("" for none)
	}{
		{"row torn, then a row", []func(*testing.T, string){appendRow("1"), appendRow("2"), cut(9), appendRow("3")},
			[]string{"1", "3"}, "lines [2]"},
		{"first row torn, then two rows", []func(*testing.T, string){appendRow("1"), cut(20), appendRow("2"), appendRow("3")},
			[]string{"2", "3"}, "lines [1]"},
		{"a row torn twice over", []func(*testing.T, string){appendRow("1"), cut(5), appendRow("2"), cut(30), appendRow("3")},
			[]string{"3"}, "lines [1 2]"},
		{"torn last row, nothing after", []func(*testing.T, string){appendRow("1"), appendRow("2"), cut(3)},
			[]string{"1"}, "lines [2]"},
		{"a torn row glued to the next by an older writer", []func(*testing.T, string){appendRow("1"), raw(`{"time":"2026-11-27T10:00:00Z","decision":"al`),
			raw(`{"time":"2026-11-27T10:00:01Z","decision":"deny","reason":"2"}` + "\n"), appendRow("3")},
			[]string{"1", "2", "3"}, "lines [2]"},
		{"whole rows only", []func(*testing.T, string){appendRow("1"), appendRow("2")},
			[]string{"1", "2"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spool := auditspool.For(filepath.Join(t.TempDir(), "audit.sqlite"))
			for _, step := range tt.steps {
				step(t, spool)
			}
			var got []string
			n, err := auditspool.Import(spool, func(es []auditspool.Entry) error {
				for _, e := range es {
					got = append(got, e.Reason)
				}
				return nil
			})
			if !slices.Equal(got, tt.want) || n != len(tt.want) {
				t.Errorf("Import recorded %d: %q, want %q", n, got, tt.want)
			}
			kept, _ := filepath.Glob(spool + ".unreadable-*")
			if tt.tornLines == "" {
				if err != nil || len(kept) != 0 {
					t.Errorf("Import = %v, kept %v; want no error and nothing kept", err, kept)
				}
				return
			}
			if !errors.Is(err, auditspool.ErrUnreadable) || !strings.Contains(err.Error(), tt.tornLines) {
				t.Errorf("Import = %v, want ErrUnreadable naming %s", err, tt.tornLines)
			}
			if len(kept) != 1 {
				t.Errorf("kept %v, want the spool with the torn line kept once", kept)
			}
		})
	}
}
