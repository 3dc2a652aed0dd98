package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/neovim/go-client/nvim"
	"gopkg.in/yaml.v3"

	"vibing/internal/testdeps"
)

// repoRoot is the checkout this file lives in (the plugin's root).
var repoRoot = func() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}()

// agentBin (vibing-agent built from this checkout) is set by TestMain in helpers_test.go.

// editor is one embedded Neovim with the plugin loaded.
type editor struct {
	t   *testing.T
	nv  *nvim.Nvim
	dir string // working directory (chats go to dir/.vibing/chat)
}

func nvimBinary(t *testing.T) string {
	t.Helper()
	name := os.Getenv("VIBING_TEST_NVIM")
	if name == "" {
		name = "nvim"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		testdeps.Missing(t, "Neovim binary %q not found (or set VIBING_TEST_NVIM): %v", name, err)
	}
	return path
}

// start launches nvim --embed with isolated XDG folders and vibing set up.
func start(t *testing.T) *editor {
	t.Helper()
	bin := nvimBinary(t)
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	env := os.Environ()
	for _, k := range []string{"CONFIG", "DATA", "STATE", "CACHE"} {
		env = append(env, fmt.Sprintf("XDG_%s_HOME=%s", k, filepath.Join(tmp, strings.ToLower(k))))
	}
	nv, err := nvim.NewChildProcess(
		nvim.ChildProcessCommand(bin),
		nvim.ChildProcessArgs("-u", filepath.Join(repoRoot, "tests", "minimal_init.lua"), "--embed", "--headless"),
		nvim.ChildProcessDir(work),
		nvim.ChildProcessEnv(env),
		nvim.ChildProcessLogf(t.Logf),
	)
	if err != nil {
		t.Fatalf("starting %s --embed: %v", bin, err)
	}
	t.Cleanup(func() {
		nv.Close()
		waitProcessesLeave(tmp)
	})
	e := &editor{t: t, nv: nv, dir: work}
	e.lua(`
		_G.vibing_notes = {}
		vim.notify = function(msg, level) table.insert(_G.vibing_notes, { msg = msg, level = level }) end
		assert(require("vibing").setup({ bin = ... }), "setup failed")
	`, nil, agentBin)
	return e
}

// lua runs Lua code in the editor; args arrive as `...`.
func (e *editor) lua(code string, result any, args ...any) {
	e.t.Helper()
	if err := e.nv.ExecLua(code, result, args...); err != nil {
		e.t.Fatalf("lua %q: %v", strings.TrimSpace(code), err)
	}
}

// keys feeds keys and runs them to completion (feedkeys with the x flag).
func (e *editor) keys(keys string) {
	e.t.Helper()
	e.lua(`vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), "xt", false)`, nil, keys)
}

// newChat runs :VibingChat [path] and returns the chat file's path.
func (e *editor) newChat(path string) string {
	e.t.Helper()
	if err := e.nv.Command("VibingChat " + path); err != nil {
		e.t.Fatalf("VibingChat: %v", err)
	}
	var name string
	e.lua(`return vim.api.nvim_buf_get_name(0)`, &name)
	return name
}

// say types line on the last line of the chat (normal mode o / A) and presses <CR>.
func (e *editor) say(line string) {
	e.t.Helper()
	e.keys("G")
	var last string
	e.lua(`return vim.api.nvim_get_current_line()`, &last)
	if last == "" {
		e.keys("A" + line + "<Esc>")
	} else {
		e.keys("o" + line + "<Esc>")
	}
	e.keys("<CR>")
}

type note struct {
	Msg   string `msgpack:"msg"`
	Level int    `msgpack:"level"`
}

func (e *editor) notes() []note {
	e.t.Helper()
	var out []note
	e.lua(`return _G.vibing_notes`, &out)
	return out
}

func (e *editor) lastNote() note {
	e.t.Helper()
	n := e.notes()
	if len(n) == 0 {
		return note{}
	}
	return n[len(n)-1]
}

func (e *editor) bufferText() string {
	e.t.Helper()
	var lines []string
	e.lua(`return vim.api.nvim_buf_get_lines(0, 0, -1, false)`, &lines)
	return strings.Join(lines, "\n")
}

func (e *editor) lastLine() string {
	e.t.Helper()
	var l string
	e.lua(`return vim.api.nvim_buf_get_lines(0, -2, -1, false)[1]`, &l)
	return l
}

// chatFile is the frontmatter of a chat file on disk, decoded independently
// of the plugin.
type chatFile struct {
	Mode    string   `yaml:"permissions_mode"`
	Preset  string   `yaml:"permissions_preset"`
	Allow   []string `yaml:"permissions_allow"`
	Ask     []string `yaml:"permissions_ask"`
	Deny    []string `yaml:"permissions_deny"`
	Session string   `yaml:"session_id"`
}

func readChat(t *testing.T, path string) (chatFile, string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.HasPrefix(s, "---\n") {
		t.Fatalf("%s does not start with a frontmatter:\n%s", path, s)
	}
	end := strings.Index(s[4:], "\n---\n")
	if end < 0 {
		t.Fatalf("%s has no closing fence:\n%s", path, s)
	}
	var c chatFile
	if err := yaml.Unmarshal([]byte(s[4:4+end]), &c); err != nil {
		t.Fatalf("%s frontmatter: %v", path, err)
	}
	return c, s
}

func has(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// waitFor polls cond until it holds or a few seconds pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// waitProcessesLeave waits (up to 15 s) until no process works in dir: an
// editor's agents (vibing-agent run, the claude CLI) end after the editor
// closed their input, and one still writing its session files would make
// the test's temporary folder fail to be removed.
func waitProcessesLeave(dir string) {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		busy := false
		for _, e := range entries {
			if e.Name()[0] < '0' || e.Name()[0] > '9' {
				continue
			}
			if cwd, err := os.Readlink("/proc/" + e.Name() + "/cwd"); err == nil && (cwd == dir || strings.HasPrefix(cwd, dir+"/")) {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
