package claude_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"vibing/internal/claude"
	"vibing/internal/matcher"
	"vibing/internal/procs"
	"vibing/internal/run"
	"vibing/internal/runtest"
	"vibing/internal/session"
)

var fakeBin string

// runHelperEnv makes the test binary a run of its own over stdio, against
// the fake CLI: "<fakeclaude>|<script>|<log>" (see TestRunKilled).
const runHelperEnv = "VIBING_CLAUDE_RUN_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(runHelperEnv); spec != "" {
		f := strings.SplitN(spec, "|", 3)
		r := &run.Runner{
			Backend: &claude.Claude{Bin: f[0], Env: []string{"FAKECLAUDE_SCRIPT=" + f[1], "FAKECLAUDE_LOG=" + f[2]}},
			Engine:  &stubEngine{}, Turn: run.Turn{Cwd: filepath.Dir(f[1])},
		}
		if r.Run(context.Background(), os.Stdin, os.Stdout) != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "fakeclaude")
	if err != nil {
		panic(err)
	}
	fakeBin = filepath.Join(dir, "fakeclaude")
	build := exec.Command("go", "build", "-o", fakeBin, "vibing/tests/fakeclaude")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build fakeclaude:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// stubEngine decides by command: "deny" anywhere in a Bash command denies,
// "ask" asks, everything else is allowed. Rules added at run time allow
// or deny exactly the suggested rule.
type stubEngine struct {
	mu      sync.Mutex
	added   map[string]session.Verdict // rule -> allow|deny
	granted []string
	cwds    []string // the shell folder each call was decided in
}

func (e *stubEngine) Decide(tool string, input map[string]any, cwd string) session.Decision {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cwds = append(e.cwds, cwd)
	cmd, _ := input["command"].(string)
	action := "tool:" + tool + ":" + cmd
	d := session.Decision{Decision: session.Allow, Source: session.SourceMode, Level: "mutating", Action: action, Reason: "mode default"}
	if v, ok := e.added[e.suggest(tool, input)]; ok {
		d.Decision, d.Source, d.Reason = v, session.SourceAllowList, "added rule"
		return d
	}
	switch {
	case strings.Contains(cmd, "deny"):
		d.Decision, d.Source, d.Rule, d.Reason = session.Deny, session.SourceDenyList, "Bash(deny:*)", "Denied by Bash(deny:*)."
	case strings.Contains(cmd, "ask"):
		d.Decision, d.Source, d.Rule, d.Reason = session.Ask, session.SourceAskList, "Bash(ask:*)", "Bash(ask:*) needs approval."
	}
	return d
}

func (e *stubEngine) suggest(tool string, input map[string]any) string {
	cmd, _ := input["command"].(string)
	return tool + "(" + cmd + ")"
}

func (e *stubEngine) Suggest(tool string, input map[string]any) string {
	return e.suggest(tool, input)
}

func (e *stubEngine) GrantSession(rule string, allow bool) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.granted = append(e.granted, rule)
	return nil
}

func (e *stubEngine) GrantOnce(string) {}

func (e *stubEngine) AddRule(list matcher.List, rule string) error {
	if !strings.HasSuffix(rule, ")") {
		return errors.New("invalid rule " + rule)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.added == nil {
		e.added = map[string]session.Verdict{}
	}
	e.added[rule] = map[matcher.List]session.Verdict{matcher.AllowList: session.Allow, matcher.DenyList: session.Deny}[list]
	return nil
}

func (e *stubEngine) Resumed() bool { return false }

// turn is one runner run against fakeclaude.
type turn struct {
	t       *testing.T
	script  string
	respond func(o run.Output, send func(run.Input)) // reacts to events
	// closeAfterPrompt closes stdin right after the prompt (the editor went away).
	closeAfterPrompt bool
	// keepOpen keeps stdin open after a result (respond sends more prompts
	// and closes it through closeIn).
	keepOpen bool
	timeout  time.Duration
	grace    time.Duration
	idle     time.Duration

	events []run.Output
	err    error
	log    []map[string]any
	audit  *runtest.Audit
	engine *stubEngine
}

func (tu *turn) run() *turn {
	t := tu.t
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "script")
	logPath := filepath.Join(dir, "log")
	if err := os.WriteFile(script, []byte(tu.script), 0o644); err != nil {
		t.Fatal(err)
	}
	tu.audit, tu.engine = &runtest.Audit{}, &stubEngine{}
	r := &run.Runner{
		Backend:         &claude.Claude{Bin: fakeBin, Env: []string{"FAKECLAUDE_SCRIPT=" + script, "FAKECLAUDE_LOG=" + logPath}, InitTimeout: 5 * time.Second},
		Engine:          tu.engine,
		Audit:           tu.audit,
		Chat:            "chat.md",
		Turn:            run.Turn{Cwd: dir},
		ApprovalTimeout: tu.timeout,
		CancelGrace:     tu.grace,
		IdleTimeout:     tu.idle,
	}
	if r.CancelGrace == 0 {
		r.CancelGrace = 300 * time.Millisecond
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var wmu sync.Mutex
	send := func(in run.Input) {
		data, _ := json.Marshal(in)
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = inW.Write(append(data, '\n'))
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<16), 1<<24)
		for sc.Scan() {
			var o run.Output
			if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			tu.events = append(tu.events, o)
			if tu.respond != nil {
				tu.respond(o, send)
			}
			if o.Type == "result" && !tu.keepOpen {
				inW.Close() // a one-shot caller: one message, then stdin closes
			}
		}
	}()
	go func() {
		send(run.Input{Type: "prompt", Text: "hello"})
		if tu.closeAfterPrompt {
			inW.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tu.err = r.Run(ctx, inR, outW)
	outW.Close()
	<-done
	inW.Close()
	data, _ := os.ReadFile(logPath)
	tu.log = parseLog(data)
	return tu
}

// parseLog reads fakeclaude's JSON Lines log.
func parseLog(data []byte) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// types lists the event types in order.
func (tu *turn) types() []string {
	var out []string
	for _, e := range tu.events {
		out = append(out, e.Type)
	}
	return out
}

func (tu *turn) count(typ string) int {
	n := 0
	for _, e := range tu.events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func (tu *turn) first(typ string) run.Output {
	for _, e := range tu.events {
		if e.Type == typ {
			return e
		}
	}
	tu.t.Fatalf("no %s event in %v", typ, tu.types())
	return run.Output{}
}

// answers returns the control responses the fake received, by request id.
func (tu *turn) answers() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, m := range tu.log {
		if m["type"] != "control_response" {
			continue
		}
		resp, _ := m["response"].(map[string]any)
		id, _ := resp["request_id"].(string)
		body, _ := resp["response"].(map[string]any)
		out[id] = body
	}
	return out
}

// hookDecision extracts the permissionDecision and reason of a hook answer.
func hookDecision(body map[string]any) (string, string) {
	h, _ := body["hookSpecificOutput"].(map[string]any)
	d, _ := h["permissionDecision"].(string)
	r, _ := h["permissionDecisionReason"].(string)
	return d, r
}

// groupGone fails the test if the fake's process group still has members.
// liveInGroup reports whether a process of group pgid is still running:
// one that is not a zombie. A killed grandchild reparented to an init that
// does not reap (as in some containers) stays a zombie, holding nothing.
func liveInGroup(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true // cannot tell: count it as alive
	}
	for _, e := range entries {
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so read after the last ')'
		i := strings.LastIndexByte(string(data), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 || f[2] != strconv.Itoa(pgid) {
			continue
		}
		if f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

func (tu *turn) groupGone() {
	tu.t.Helper()
	nothingLeft(tu.t, tu.log, 2*time.Second)
	for _, m := range tu.log {
		if m["type"] != "args" {
			continue
		}
		pgid := int(m["pgid"].(float64))
		deadline := time.Now().Add(2 * time.Second)
		for {
			err := syscall.Kill(-pgid, 0)
			if errors.Is(err, syscall.ESRCH) || !liveInGroup(pgid) {
				return // gone, or only zombies left for init to reap
			}
			if time.Now().After(deadline) {
				tu.t.Fatalf("process group %d still alive after the run (kill -0: %v)", pgid, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	tu.t.Fatal("fakeclaude logged no args line")
}

// nothingLeft fails the test unless, within d, every process the fake
// started (logged "spawned" pids) is gone and no process carries the run's
// marker: the tool processes in groups of their own and the daemon
// included.
func nothingLeft(t *testing.T, log []map[string]any, d time.Duration) {
	t.Helper()
	var marker string
	var pids []int
	for _, m := range log {
		switch m["type"] {
		case "args":
			marker, _ = m["marker"].(string)
		case "spawned":
			pids = append(pids, int(m["pid"].(float64)))
		}
	}
	if marker == "" {
		t.Fatal("the fake CLI ran without a marker in its environment")
	}
	deadline := time.Now().Add(d)
	for {
		var left []string
		for _, pid := range pids {
			if alive(pid) {
				left = append(left, fmt.Sprintf("spawned %d", pid))
			}
		}
		for _, p := range procs.Marked(marker) {
			left = append(left, fmt.Sprintf("marked %d", p.Pid))
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the run: %v", left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// alive reports whether pid runs (not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(data), ')')
	f := strings.Fields(string(data[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}
