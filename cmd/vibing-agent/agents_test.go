package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// The programs the tests of this package run are the pair `make build`
// makes (static, -trimpath): the lean vibing-agent, which runs check and
// hook, and vibing-agent-full beside it, which runs audit, rpc and run for
// it. They are built once per test binary (or copied from
// $VIBING_TEST_AGENT_DIR, the bin/ make test names), into a folder every
// user can enter (the fault tests run the lean one as another user), which
// TestMain removes.
var made struct {
	once sync.Once
	dir  string
	err  string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if made.dir != "" {
		os.RemoveAll(made.dir)
	}
	os.Exit(code)
}

// madePair builds the pair once and returns the paths of the lean and
// the full build. Tests must not change that folder: buildPair gives a
// copy of its own to a test that does.
func madePair(t *testing.T) (lean, full string) {
	t.Helper()
	made.once.Do(func() {
		dir, err := os.MkdirTemp("", "vibing-made-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err != nil {
			made.err = err.Error()
			return
		}
		made.dir = dir
		if from := os.Getenv("VIBING_TEST_AGENT_DIR"); from != "" {
			// make test names the bin/ that make build made
			for _, name := range []string{fullBinary, "vibing-agent"} {
				if err := copyFile(filepath.Join(from, name), filepath.Join(dir, name)); err != nil {
					made.err = "$VIBING_TEST_AGENT_DIR: " + err.Error()
					return
				}
			}
			return
		}
		if out, err := staticBuild(filepath.Join(dir, fullBinary), "."); err != nil {
			made.err = err.Error() + "\n" + out
			return
		}
		if out, err := staticBuild(filepath.Join(dir, "vibing-agent"), ".", "lean"); err != nil {
			made.err = err.Error() + "\n" + out
		}
	})
	if made.err != "" {
		t.Fatalf("build as make does: %s", made.err)
	}
	return filepath.Join(made.dir, "vibing-agent"), filepath.Join(made.dir, fullBinary)
}

// madeAgent is the lean build, the program a hook entry runs.
func madeAgent(t *testing.T) string {
	lean, _ := madePair(t)
	return lean
}

// leanAgent is the lean build (bin/vibing-agent), in a folder another user
// (nobody) can run it from.
func leanAgent(t *testing.T) string { return madeAgent(t) }

// sharedAgent is the full build, which holds every command in-process.
func sharedAgent(t *testing.T) string {
	_, full := madePair(t)
	return full
}

// buildAgent is the full build, as sharedAgent.
func buildAgent(t *testing.T) string { return sharedAgent(t) }

// buildPair copies the pair into a folder of the test's own (a test that
// removes one of them) and returns the lean one's path.
func buildPair(t *testing.T) string {
	t.Helper()
	lean, full := madePair(t)
	dir := t.TempDir()
	for _, src := range []string{lean, full} {
		if err := copyFile(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "vibing-agent")
}

// copyFile copies the program src to dst (mode 0755).
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o755)
}
