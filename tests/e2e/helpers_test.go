package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/fakeapi"
	"vibing/internal/procs"
	"vibing/internal/run"
	"vibing/internal/testdeps"
)

var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "vibing-e2e")
	if err != nil {
		panic(err)
	}
	// the pair make builds: the lean vibing-agent (check, hook, ...) and
	// vibing-agent-full beside it, which runs rpc, run and audit for it;
	// copied from $VIBING_TEST_AGENT_DIR when make test names its bin/
	// (built once for every step), else built here
	agentBin = filepath.Join(dir, "vibing-agent")
	if err := agentPair(dir, os.Getenv("VIBING_TEST_AGENT_DIR")); err != nil {
		fmt.Fprintln(os.Stderr, "vibing-agent:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// agentPair puts vibing-agent and vibing-agent-full into dir: copies of
// the ones in from, or else built from this checkout.
func agentPair(dir, from string) error {
	// the full build, the lean one, and the audit export's sender, which
	// run, rpc and audit export start
	for _, b := range []struct{ name, tags string }{{"vibing-agent-full", ""}, {"vibing-agent", "lean"}, {"vibing-agent-otel", "otel"}} {
		out := filepath.Join(dir, b.name)
		if from != "" {
			data, err := os.ReadFile(filepath.Join(from, b.name))
			if err != nil {
				return fmt.Errorf("$VIBING_TEST_AGENT_DIR: %w (make build makes it)", err)
			}
			if err := os.WriteFile(out, data, 0o755); err != nil {
				return err
			}
			continue
		}
		args := []string{"build", "-o", out}
		if b.tags != "" {
			args = append(args, "-tags", b.tags)
		}
		build := exec.Command("go", append(args, "vibing/cmd/vibing-agent")...)
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build %s: %w", b.name, err)
		}
	}
	return nil
}

// claudeBin finds the real CLI; a missing CLI skips the test ("run make
// deps"), or under CI=true fails it (internal/testdeps).
func claudeBin(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("VIBING_TEST_CLAUDE_BIN"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", ".deps", "claude", "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude")
	if _, err := os.Stat(p); err != nil {
		testdeps.Missing(t, "the claude CLI is not installed (%v; or set $VIBING_TEST_CLAUDE_BIN)", err)
	}
	return p
}

// world is one isolated project: a chat, a config, a home, a fake API.
type world struct {
	t       *testing.T
	dir     string // project root and working directory
	home    string
	chat    string
	config  string
	api     *fakeapi.Server
	claude  string
	auditDB string
}

func newWorld(t *testing.T, frontmatter, config string, turns ...fakeapi.Turn) *world {
	t.Helper()
	root := t.TempDir()
	w := &world{t: t, dir: filepath.Join(root, "project"), home: filepath.Join(root, "home"), claude: claudeBin(t),
		auditDB: filepath.Join(root, "audit.sqlite")}
	for _, d := range []string{w.dir, w.home, filepath.Join(w.dir, ".vibing", "chat")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	w.chat = filepath.Join(w.dir, ".vibing", "chat", "chat-test.md")
	w.write(w.chat, "---\nvibing.nvim: true\n"+frontmatter+"---\n\n## User\n\nhello\n")
	w.config = filepath.Join(root, "options.yaml")
	w.write(w.config, fmt.Sprintf("audit_path: %s\n%s", w.auditDB, config))
	w.api = fakeapi.New(turns...)
	t.Cleanup(w.api.Close)
	return w
}

func (w *world) write(path, content string) {
	w.t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *world) exists(name string) bool {
	_, err := os.Stat(filepath.Join(w.dir, name))
	return err == nil
}

// runResult is what one vibing-agent run produced.
type runResult struct {
	events []run.Output
	code   int
	stderr string
	maxRSS int64 // KiB, VmHWM sampled while the run was alive
}

func (r *runResult) types() []string {
	var out []string
	for _, e := range r.events {
		out = append(out, e.Type)
	}
	return out
}

func (r *runResult) all(typ string) []run.Output {
	var out []run.Output
	for _, e := range r.events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

// run runs vibing-agent run against the real CLI; respond reacts to events.
func (w *world) run(respond func(o run.Output, send func(run.Input)), extra ...string) *runResult {
	return w.runLive(nil, respond, extra...)
}

// runLive is run with more messages: each of more is sent as the next
// prompt after a result (the same live CLI answers it); stdin closes after
// the last result.
func (w *world) runLive(more []string, respond func(o run.Output, send func(run.Input)), extra ...string) *runResult {
	t := w.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := w.command(ctx, extra...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	send := func(in run.Input) {
		data, _ := json.Marshal(in)
		mu.Lock()
		defer mu.Unlock()
		_, _ = stdin.Write(append(data, '\n'))
	}
	send(run.Input{Type: "prompt", Text: "please do the thing"})
	res := &runResult{}
	pid := cmd.Process.Pid
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		var o run.Output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Errorf("stdout line is not JSON: %q", sc.Text())
			continue
		}
		if rss := vmHWM(pid); rss > res.maxRSS {
			res.maxRSS = rss
		}
		res.events = append(res.events, o)
		if respond != nil {
			respond(o, send)
		}
		if o.Type == "result" {
			if len(more) == 0 {
				mu.Lock()
				stdin.Close() // a one-shot caller: the run ends after its result
				mu.Unlock()
			} else {
				send(run.Input{Type: "prompt", Text: more[0]})
				more = more[1:]
			}
		}
	}
	stdin.Close()
	err := cmd.Wait()
	res.code = cmd.ProcessState.ExitCode()
	res.stderr = stderr.String()
	if err != nil && res.code == 0 {
		t.Fatalf("vibing-agent: %v", err)
	}
	t.Logf("events: %v (exit %d, peak RSS %d KiB)", res.types(), res.code, res.maxRSS)
	return res
}

// command is vibing-agent run for the world's chat, against the real CLI.
func (w *world) command(ctx context.Context, extra ...string) *exec.Cmd {
	args := append([]string{"run", "--chat", w.chat, "--config", w.config, "--cwd", w.dir}, extra...)
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Dir = w.dir
	cmd.Env = append(os.Environ(),
		"HOME="+w.home, "XDG_STATE_HOME="+filepath.Join(w.home, "state"), "XDG_CONFIG_HOME="+filepath.Join(w.home, "config"),
		"VIBING_CLAUDE_BIN="+w.claude,
		"ANTHROPIC_BASE_URL="+w.api.URL, "ANTHROPIC_API_KEY=test",
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CLAUDE_CODE_ENABLE_TELEMETRY=0",
		"VIBING_E2E_WORLD="+w.dir) // every process of the run inherits it: see leftovers
	return cmd
}

// leftovers lists the live processes that came from this world's runs.
func (w *world) leftovers() []int {
	var out []int
	for _, p := range procs.WithEnv("VIBING_E2E_WORLD=" + w.dir) {
		out = append(out, p.Pid)
	}
	return out
}

// vmHWM is a process's peak resident set in KiB (0 when unknown).
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			n, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return n
		}
	}
	return 0
}

func answer(decision run.Answer) func(run.Output, func(run.Input)) {
	return func(o run.Output, send func(run.Input)) {
		if o.Type == "approval_request" {
			send(run.Input{Type: "approval_response", ID: o.ID, Decision: decision})
		}
	}
}

func bash(cmd string) fakeapi.Turn {
	return fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "Bash", Input: map[string]any{"command": cmd, "description": "test step"}}}}
}
