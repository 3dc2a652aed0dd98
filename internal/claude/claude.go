package claude

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"vibing/internal/hook"
	"vibing/internal/procs"
	"vibing/internal/run"
)

// Errors.
var (
	ErrNotFound    = errors.New("claude CLI not found: set $VIBING_CLAUDE_BIN or the claude_cmd option, or put claude on PATH")
	ErrInitFailed  = errors.New("claude did not accept the initialize request, so its tool calls could not be gated")
	ErrLineTooLong = errors.New("claude wrote an output line longer than the limit")
)

// Defaults.
const (
	DefaultMaxLine     = 8 << 20 // bytes in one stream-json line
	DefaultInitTimeout = 30 * time.Second
	hookCallbackID     = "vibing_pre_tool_use"
	initRequestID      = "vibing_init"
)

// Claude starts the claude CLI. The zero value is not usable; use New.
type Claude struct {
	Bin         string        // the CLI binary
	Env         []string      // extra environment on top of the process's
	MaxLine     int           // longest accepted output line; default 8 MiB
	InitTimeout time.Duration // how long initialize may take; default 30 s
	// Wrap, when set, rewrites the command just before it starts (the
	// sandbox, SPEC §14); an error stops the start.
	Wrap func(cmd *exec.Cmd) error
}

var (
	_ run.Backend  = (*Claude)(nil)
	_ run.Prompter = (*conn)(nil)
	_ run.Switcher = (*conn)(nil)
	_ run.Partial  = (*conn)(nil)
)

func init() {
	run.Register("claude", func(o run.BackendOptions) (run.Backend, error) {
		bin, err := Find(o.ClaudeCmd)
		if err != nil {
			return nil, err
		}
		return &Claude{Bin: bin, Wrap: o.Wrap}, nil
	})
}

// Find locates the CLI: $VIBING_CLAUDE_BIN, then the claude_cmd option, then
// "claude" on PATH.
func Find(claudeCmd string) (string, error) {
	for _, c := range []string{os.Getenv("VIBING_CLAUDE_BIN"), claudeCmd, "claude"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Args returns the CLI arguments for a turn.
func Args(t run.Turn) []string {
	mode := "default"
	if t.Mode == "plan" {
		mode = "plan"
	}
	args := []string{"--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
		"--include-partial-messages", "--permission-prompt-tool", "stdio", "--permission-mode", mode}
	if t.SessionID != "" {
		args = append(args, "--resume="+t.SessionID)
		if t.ForkSession {
			args = append(args, "--fork-session")
		}
	}
	if t.Model != "" {
		args = append(args, "--model", t.Model)
	}
	if len(t.DisallowedTools) > 0 {
		args = append(args, "--disallowedTools", strings.Join(t.DisallowedTools, ","))
	}
	return args
}

// hookTimeoutS keeps the CLI's hook timeout far above the approval timeout:
// several approvals of one turn wait in line behind each other.
func hookTimeoutS(approvalS int) int {
	if approvalS <= 0 {
		approvalS = 60
	}
	return max(600, 10*approvalS)
}

// Start starts the CLI, registers the hook, waits for the CLI to accept it,
// and sends the prompt.
func (c *Claude) Start(ctx context.Context, t run.Turn) (run.Conn, error) {
	// The CLI runs under a keeper (internal/procs): whatever way the turn
	// ends, nothing it started outlives it, its tools in process groups of
	// their own and background commands included.
	marker := procs.NewMarker()
	cmd := procs.Command(marker, c.Bin, Args(t)...)
	cmd.Dir = t.Cwd
	// an installed `vibing-agent hook` stands aside for this claude: the run decides
	cmd.Env = procs.Env(cmd, append(append(append(os.Environ(), c.Env...), t.Env...), hook.RunToken()), marker)
	cmd.WaitDelay = 2 * time.Second
	stderr := &tail{max: 4096}
	cmd.Stderr = stderr
	if c.Wrap != nil {
		if err := c.Wrap(cmd); err != nil {
			return nil, err
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start claude: %w", err)
	}
	maxLine := c.MaxLine
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	k := &conn{cmd: cmd, stdin: stdin, stderr: stderr, events: make(chan run.Event, 256),
		initDone: make(chan error, 1), maxLine: maxLine, marker: marker, out: &lineTail{r: stdout}}
	go k.read(k.out)

	initReq := map[string]any{"subtype": "initialize", "hooks": map[string]any{
		"PreToolUse": []any{map[string]any{"matcher": nil, "hookCallbackIds": []string{hookCallbackID},
			"timeout": hookTimeoutS(t.ApprovalTimeoutS)}},
	}}
	if err := k.send(map[string]any{"type": "control_request", "request_id": initRequestID, "request": initReq}); err != nil {
		return nil, k.abort(fmt.Errorf("%w: %v", ErrInitFailed, err))
	}
	timeout := c.InitTimeout
	if timeout <= 0 {
		timeout = DefaultInitTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-k.initDone:
		if err != nil {
			return nil, k.abort(err)
		}
	case <-timer.C:
		return nil, k.abort(fmt.Errorf("%w: no answer within %s", ErrInitFailed, timeout))
	case <-ctx.Done():
		return nil, k.abort(ctx.Err())
	}
	if err := k.Prompt(t.Prompt); err != nil {
		return nil, k.abort(fmt.Errorf("send prompt to claude: %w", err))
	}
	return k, nil
}

// Prompt sends a user message: the first one of the turn Start began, or
// the next one once the previous turn's result came (stream-json input takes
// several messages in one session, so the same CLI answers the whole chat).
func (k *conn) Prompt(text string) error {
	k.turnOpen.Store(true)
	msg := map[string]any{"type": "user", "session_id": "", "parent_tool_use_id": nil,
		"message": map[string]any{"role": "user", "content": text}}
	return k.send(msg)
}

// SetModel switches the CLI's model between messages ("" for its default).
func (k *conn) SetModel(model string) error {
	req := map[string]any{"subtype": "set_model"}
	if model != "" {
		req["model"] = model
	}
	return k.control(req)
}

// SetMode passes plan mode, or default, to the CLI between messages (the
// pipeline decides every call either way; plan changes how the model works).
func (k *conn) SetMode(mode string) error {
	if mode != "plan" {
		mode = "default"
	}
	return k.control(map[string]any{"subtype": "set_permission_mode", "mode": mode})
}

func (k *conn) control(req map[string]any) error {
	k.wmu.Lock()
	k.interrupt++
	id := fmt.Sprintf("vibing_control_%d", k.interrupt)
	k.wmu.Unlock()
	return k.send(map[string]any{"type": "control_request", "request_id": id, "request": req})
}

// PartialLine is how many bytes of an output line the CLI has written
// without the line's end.
func (k *conn) PartialLine() int { return int(k.out.n.Load()) }

// EndInput closes the CLI's stdin: it exits once idle (after a result).
func (k *conn) EndInput() { k.closeStdin() }

// tail keeps the last max bytes written to it (the CLI's stderr, for error
// messages).
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

// conn is one running CLI.
type conn struct {
	cmd      *exec.Cmd
	stdin    io.WriteCloser
	stderr   *tail
	events   chan run.Event
	initDone chan error
	maxLine  int
	marker   string // in the environment of every process of the turn
	text     textStream
	out      *lineTail // the CLI's stdout
	killOnce sync.Once
	exited   atomic.Bool // the keeper was waited for: its pid may be reused
	turnOpen atomic.Bool // a message was sent and its result has not come yet

	wmu       sync.Mutex
	closed    bool
	interrupt int

	initOnce sync.Once

	// inflight holds the ids of permission requests the CLI still waits on.
	// An id leaves it exactly once: by its answer, or by the CLI's
	// control_cancel_request, so a withdrawn request is never answered.
	pmu      sync.Mutex
	inflight map[string]bool
}

// track marks permission request id as waiting for an answer.
func (k *conn) track(id string) {
	k.pmu.Lock()
	defer k.pmu.Unlock()
	if k.inflight == nil {
		k.inflight = map[string]bool{}
	}
	k.inflight[id] = true
}

// settle takes id out of the waiting requests and reports whether it was
// still waiting (neither answered nor withdrawn).
func (k *conn) settle(id string) bool {
	k.pmu.Lock()
	defer k.pmu.Unlock()
	if !k.inflight[id] {
		return false
	}
	delete(k.inflight, id)
	return true
}

func (k *conn) Events() <-chan run.Event { return k.events }

// send writes one JSON line to the CLI's stdin.
func (k *conn) send(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	k.wmu.Lock()
	defer k.wmu.Unlock()
	if k.closed {
		return errors.New("claude's stdin is closed")
	}
	_, err = k.stdin.Write(data)
	return err
}

func (k *conn) closeStdin() {
	k.wmu.Lock()
	defer k.wmu.Unlock()
	if !k.closed {
		k.closed = true
		_ = k.stdin.Close()
	}
}

// Interrupt sends an interrupt control request.
func (k *conn) Interrupt() error {
	k.wmu.Lock()
	k.interrupt++
	id := fmt.Sprintf("vibing_interrupt_%d", k.interrupt)
	k.wmu.Unlock()
	return k.send(map[string]any{"type": "control_request", "request_id": id,
		"request": map[string]any{"subtype": "interrupt"}})
}

// Kill ends the CLI and everything it started: the keeper (SIGTERM) kills
// the CLI's process group and every descendant; a keeper that does not end
// within a second is killed with its group (the CLI follows by its
// parent-death signal), and what carries the turn's marker is swept.
func (k *conn) Kill() {
	k.closeStdin()
	if k.cmd.Process == nil || k.exited.Load() {
		return
	}
	pid := k.cmd.Process.Pid
	k.killOnce.Do(func() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		time.AfterFunc(time.Second, func() {
			if !k.exited.Load() {
				_ = syscall.Kill(-pid, syscall.SIGKILL)
			}
		})
	})
}

// sweep kills what is left with the turn's marker (a keeper killed outright
// could not clean up).
func (k *conn) sweep() { procs.Sweep(k.marker) }

// abort kills a CLI whose start failed and returns err with its stderr.
func (k *conn) abort(err error) error {
	k.Kill()
	go func() {
		for range k.events {
		}
	}()
	if s := k.stderr.String(); s != "" {
		return fmt.Errorf("%w (claude: %s)", err, s)
	}
	return err
}

func (k *conn) signalInit(err error) {
	k.initOnce.Do(func() { k.initDone <- err })
}
