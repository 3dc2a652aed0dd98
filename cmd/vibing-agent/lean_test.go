package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// heavyPackages are what check and hook never use: SQLite (the audit
// database) and the Neovim client (msgpack-RPC). Go initialises every
// package a binary links, so the lean build must not link them.
var heavyPackages = []string{"modernc.org/sqlite", "modernc.org/libc", "github.com/neovim/go-client/msgpack"}

func TestLeanBuildLinksNoHeavyPackage(t *testing.T) {
	deps := func(tags ...string) string {
		args := []string{"list", "-deps"}
		if len(tags) > 0 {
			args = append(args, "-tags", strings.Join(tags, ","))
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return "\n" + string(out)
	}
	full, lean := deps(), deps("lean")
	for _, p := range heavyPackages {
		if !strings.Contains(full, "\n"+p+"\n") {
			t.Errorf("the full build does not link %s: this test no longer looks at the right packages", p)
		}
		if strings.Contains(lean, "\n"+p+"\n") {
			t.Errorf("the lean build links %s", p)
		}
	}
}

// The lean vibing-agent decides in-process and hands audit, rpc and run to
// vibing-agent-full beside it: a hook row spooled by the lean binary is
// read back by audit, which runs in the full one.
func TestLeanForwardsTheFullCommands(t *testing.T) {
	bin := buildPair(t)
	work := t.TempDir()
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(work, "state"),
		"XDG_CONFIG_HOME="+filepath.Join(work, "config"), "HOME="+work)
	run := func(stdin string, args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = work, env, strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return string(out), code
	}
	hookIn := `{"session_id":"lean","cwd":"` + work + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}`
	if out, code := run(hookIn, "hook"); code != 0 || !strings.Contains(out, `"deny"`) {
		t.Fatalf("hook: exit %d, want 0 and a deny:\n%s", code, out)
	}
	cases := []struct {
		name  string
		args  []string
		wants []string
	}{
		{"help lists every command", []string{"--help"}, []string{"audit ", "rpc ", "run ", "check ", "hook "}},
		{"audit reads the lean hook's row", []string{"audit", "--json"}, []string{`"decision":"deny"`, `"source":"deny_list"`, `"via":"hook"`, "rm -rf /"}},
		{"run's own help", []string{"run", "--help"}, []string{"Usage: vibing-agent run"}},
		{"rpc's own help", []string{"rpc", "--help"}, []string{"Usage: vibing-agent rpc", "msgpack-RPC"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := run("", tc.args...)
			if code != 0 && tc.args[len(tc.args)-1] != "--help" {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			for _, w := range tc.wants {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}

	// without vibing-agent-full, a forwarded command fails and says why
	if err := os.Remove(filepath.Join(filepath.Dir(bin), fullBinary)); err != nil {
		t.Fatal(err)
	}
	out, code := run("", "audit")
	if code != exitFail || !strings.Contains(out, fullBinary) || !strings.Contains(out, "run make") {
		t.Errorf("audit without %s: exit %d, want %d and a message naming it:\n%s", fullBinary, code, exitFail, out)
	}
	if out, code := run(hookIn, "hook"); code != 0 || !strings.Contains(out, `"deny"`) {
		t.Errorf("hook without %s: exit %d, want 0 and a deny (it runs in the lean build):\n%s", fullBinary, code, out)
	}
}

// hook install writes the lean build's path, whichever build runs it (the
// editor's rpc runs in vibing-agent-full), and the full one's when it
// stands alone.
func TestHookInstallNamesTheLeanBuild(t *testing.T) {
	lean := buildPair(t)
	full := filepath.Join(filepath.Dir(lean), fullBinary)
	entry := func(bin string) string {
		cmd := exec.Command(bin, "hook", "install", "--print")
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s hook install --print: %v\n%s", bin, err, out)
		}
		return string(out)
	}
	for _, bin := range []string{lean, full} {
		if out := entry(bin); !strings.Contains(out, `"command": "`+lean+`"`) || strings.Contains(out, full) {
			t.Errorf("%s hook install --print names another program than %s:\n%s", filepath.Base(bin), lean, out)
		}
	}
	if err := os.Remove(lean); err != nil {
		t.Fatal(err)
	}
	if out := entry(full); !strings.Contains(out, `"command": "`+full+`"`) {
		t.Errorf("vibing-agent-full alone names another program than itself:\n%s", out)
	}
}
