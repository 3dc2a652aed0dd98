package run

import (
	"context"
	"fmt"
	"os/exec"
	"sort"
	"sync"
)

// Turn is what a backend needs to run one chat message.
type Turn struct {
	Prompt    string
	SessionID string // resume this session when not empty
	// ForkSession resumes SessionID into a new session (a forked chat).
	ForkSession bool
	Model       string // the chat's model, or "" for the backend's default
	Mode        string // the chat's permission mode (plan is passed on as plan)
	Cwd         string
	// DisallowedTools are tools denied outright (bare deny rules): the backend
	// may hide them from the model. Never an allow list.
	DisallowedTools []string
	// ApprovalTimeoutS bounds how long a permission request may wait; the
	// backend must keep its own callback timeout above it.
	ApprovalTimeoutS int
	Env              []string // extra environment (KEY=VALUE) for the backend process
}

// Kind is the kind of a backend event.
type Kind int

// Backend event kinds.
const (
	KindSession    Kind = iota + 1 // SessionID known
	KindText                       // assistant text
	KindToolUse                    // the model asked for a tool call
	KindToolResult                 // a tool call finished
	KindPermission                 // the backend asks whether a tool call may run
	KindResult                     // the turn is over
	KindError                      // the backend failed; the turn is over
	// KindWithdraw: the backend no longer needs the answer to the permission
	// request RequestID (a Permission.ID). The runner closes the approval if
	// it is being asked, drops it if it is queued, and never calls its Reply;
	// an id it does not know (already answered, or never seen) is ignored.
	KindWithdraw
	// KindNotice: something the person should see that does not end the
	// turn (Message), e.g. that the API failed and the call is retried.
	KindNotice
)

// Event is one thing the backend reports. The events channel ends after a
// KindResult or KindError event (or without one if the backend broke; the
// runner then reports the failure itself).
type Event struct {
	Kind       Kind
	SessionID  string
	Text       string
	ToolUseID  string
	Tool       string
	Input      map[string]any
	IsError    bool
	Content    string
	CostUSD    float64
	DurationMS int64
	Message    string      // KindError, KindNotice
	RequestID  string      // KindWithdraw
	Permission *Permission // KindPermission
	Tools      []string    // KindSession: the tools the CLI offers (its system/init event)
}

// Verdict is the answer to a permission request.
type Verdict struct {
	Allow   bool
	Message string // why, for a deny: reaches the model
	// UpdatedInput, for an allow, is the input to run instead of the one
	// asked about (the person edited it); nil runs the input as asked.
	UpdatedInput map[string]any
}

// Permission is a backend's question "may this tool call run?". Reply must be
// called exactly once, unless the backend withdrew the request (KindWithdraw)
// first: then it is never called.
type Permission struct {
	ID        string // the backend's request id
	ToolUseID string // the model's tool_use id, when known
	Tool      string
	Input     map[string]any
	// Cwd is the folder the agent's shell is in for this call, when the
	// backend says (Claude Code's hook input "cwd": its Bash keeps a cd from
	// one call to the next); "" when it does not.
	Cwd   string
	Reply func(Verdict)

	key     string // callKey, once worked out
	network bool   // a connection from inside the sandbox (NetworkPermission)
}

// Conn is one running turn of a backend.
type Conn interface {
	// Events delivers the turn's events; it is closed when the backend exited.
	Events() <-chan Event
	// Interrupt asks the backend to stop the turn gracefully.
	Interrupt() error
	// Kill stops the backend and everything it started, at once.
	Kill()
}

// Prompter is a Conn whose process lives on after a turn's result and takes
// the chat's next message (SPEC §13: one live CLI process per open chat, so
// approvals keep working for the whole conversation). A Conn that is not a
// Prompter runs one turn.
type Prompter interface {
	// Prompt sends the next message once the previous turn's result came.
	Prompt(text string) error
	// EndInput says no more messages come: the backend ends once idle.
	EndInput()
}

// Partial is a Conn that can say how much of an output line it has received
// without its end: the bytes of a line not yet read as an event (the idle
// timeout's error says so rather than "sent nothing").
type Partial interface {
	PartialLine() int
}

// Switcher is a live Conn that can change the model and the permission
// mode between messages (the person typed /model or /permission plan).
type Switcher interface {
	SetModel(model string) error
	SetMode(mode string) error
}

// Reloaded is the chat read again before a later message (Runner.Reload).
type Reloaded struct {
	Engine Engine
	Notes  []string // shown as notices (invalid rules: the engine fails closed)
	Model  string   // the chat's model now ("" for the CLI's default)
	Mode   string   // the chat's permission mode now
}

// Backend starts turns.
type Backend interface {
	Start(ctx context.Context, t Turn) (Conn, error)
}

// Factory builds a backend from the run's options.
type Factory func(o BackendOptions) (Backend, error)

// BackendOptions are what a backend factory may use.
type BackendOptions struct {
	ClaudeCmd string // the claude_cmd option
	// Wrap, when set, rewrites the agent's command just before it starts
	// (the sandbox puts bwrap in front of it, SPEC §14); an error stops
	// the start.
	Wrap func(cmd *exec.Cmd) error
}

var (
	registryMu sync.Mutex
	registry   = map[string]Factory{}
)

// Register makes a backend available under name (from an init function).
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	registry[name] = f
}

// NewBackend builds the backend registered under name.
func NewBackend(name string, o BackendOptions) (Backend, error) {
	registryMu.Lock()
	f, ok := registry[name]
	registryMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %v)", ErrUnknownBackend, name, Backends())
	}
	return f(o)
}

// Backends lists the registered backend names, sorted.
func Backends() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
