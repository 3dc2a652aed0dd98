package oracle

import (
	"os"
	"reflect"
	"testing"
)

// TestParseTrace reads a batch's trace as strace -f -y --decode-pids=pidns
// prints it: each line's processes are told apart by their clone results
// (a call cut in two by another process's included), what the driver does
// between lines belongs to none, relative names are resolved against each
// process's own folder, and failed calls and O_PATH opens are no effect.
func TestParseTrace(t *testing.T) {
	data, err := os.ReadFile("testdata/batch.trace")
	if err != nil {
		t.Fatal(err)
	}
	effs := parseTrace(data, "/w/proj")
	if len(effs) != 2 {
		t.Fatalf("%d lines, want 2", len(effs))
	}
	want := []Effects{
		{
			Reads:  []string{"/w/proj/.env"},
			Writes: []string{"/w/proj/c\"d", "/w/proj/src/a b", "/w/proj/src/x", "/w/proj/src/y"},
			Execs:  [][]string{{"cat", ".env"}, {"rm", "x"}},
		},
		{
			Writes: []string{"/w/proj/h", "/w/proj/n"},
			Links:  []string{"/w/proj/.env"},
		},
	}
	for i, w := range want {
		got := effs[i]
		if !reflect.DeepEqual(got.Reads, w.Reads) || !reflect.DeepEqual(got.Writes, w.Writes) ||
			!reflect.DeepEqual(got.Links, w.Links) || !reflect.DeepEqual(got.Execs, w.Execs) {
			t.Errorf("line %d:\n got reads %q writes %q links %q execs %q\nwant reads %q writes %q links %q execs %q",
				i, got.Reads, got.Writes, got.Links, got.Execs, w.Reads, w.Writes, w.Links, w.Execs)
		}
	}
}
