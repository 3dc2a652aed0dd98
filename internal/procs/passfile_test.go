package procs_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"vibing/internal/procs"
)

// A file handed on with PassFile reaches the program under its keeper at
// the descriptor PassFile returned, and the keeper's marker variable does
// not.
func TestPassFileThroughKeeper(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("handed-on"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	marker := procs.NewMarker()
	cmd := procs.Command(marker, "/bin/sh", "-c", `cat <&"$1"; echo; echo "files=${VIBING_KEEPER_FILES:-none}"`, "sh")
	cmd.Env = procs.Env(cmd, os.Environ(), marker)
	fd := procs.PassFile(cmd, f)
	cmd.Args = append(cmd.Args, strconv.Itoa(fd))
	if !procs.IsKeeper(cmd) {
		t.Fatal("the command does not run under a keeper")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if string(out) != "handed-on\nfiles=none\n" {
		t.Errorf("got %q", out)
	}
}
