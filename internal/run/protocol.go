package run

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"vibing/internal/changes"
	"vibing/internal/preview"
)

// Errors.
var (
	ErrUnknownBackend = errors.New("unknown backend")
	ErrNoPrompt       = errors.New("no prompt: the first line on stdin must be {\"type\":\"prompt\",\"text\":\"...\"}")
	ErrCancelled      = errors.New("run cancelled")
)

// Answer is the person's reply to an ask (SPEC §5): one of the constants
// below (the "answer" value set of docs/architecture.md's glossary). Its
// JSON is the plain string.
type Answer string

// Approval answers (SPEC §5).
const (
	AllowOnce       Answer = "allow_once"
	DenyOnce        Answer = "deny_once"
	AllowForSession Answer = "allow_for_session"
	DenyForSession  Answer = "deny_for_session"
	AlwaysAllow     Answer = "always_allow"
	AlwaysDeny      Answer = "always_deny"
)

// Options lists every approval answer, in the order the editor shows them.
var Options = []Answer{AllowOnce, DenyOnce, AllowForSession, DenyForSession, AlwaysAllow, AlwaysDeny}

// String returns the answer as its plain string.
func (a Answer) String() string { return string(a) }

// ParseAnswer reads an answer the editor sent (Input.Decision): any string
// but the six, "" too, is an error naming them.
func ParseAnswer(s string) (Answer, error) {
	if a := Answer(s); slices.Contains(Options, a) {
		return a, nil
	}
	return "", fmt.Errorf("unknown answer %q (want one of %v)", s, Options)
}

// Who resolved an approval.
const (
	ByUser    = "user"
	ByTimeout = "timeout"
	ByCancel  = "cancel"
	ByAgent   = "agent" // the agent withdrew its request
)

// Withdrawn is the approval_resolved decision when the agent withdrew the
// request before the person answered: the call does not run and no answer is
// sent to the agent.
const Withdrawn = "withdrawn"

// Input is one line the editor sends on stdin.
type Input struct {
	Type string `json:"type"` // prompt | approval_response | cancel
	Text string `json:"text,omitempty"`
	ID   string `json:"id,omitempty"`
	// Decision, in an approval_response, is the answer as the editor sent
	// it, any string: the runner checks it with ParseAnswer.
	Decision Answer `json:"decision,omitempty"`
	Rule     string `json:"rule,omitempty"`
	// UpdatedInput, with an allow answer, is the input to run instead (the
	// person edited the proposal): its keys replace the original's.
	UpdatedInput map[string]any `json:"updated_input,omitempty"`
	// Reason, with a deny answer, is the person's own words to the model.
	Reason string `json:"reason,omitempty"`
	// Answers, with allow_once to an AskUserQuestion call, are the person's
	// answers by question text (several options of a multi-select question
	// joined by ", "); the CLI gets them as updatedInput.answers.
	Answers map[string]string `json:"answers,omitempty"`
}

// QuestionTool is the CLI's tool that asks the person questions: its
// approval is answered (allow_once with answers) or declined (deny_once).
const QuestionTool = "AskUserQuestion"

// Output is one line the runner writes on stdout. Only the fields of its
// type are set.
type Output struct {
	Type string `json:"type"`

	SessionID string `json:"session_id,omitempty"`
	Resumed   *bool  `json:"resumed,omitempty"`
	// Turn counts the messages of this run, from 1 (session, result).
	Turn int `json:"turn,omitempty"`
	// Cancelled: the turn ended because the person cancelled it (result).
	Cancelled bool `json:"cancelled,omitempty"`
	// Final: the run ends after this result (a backend that answers one
	// message per process); the next message needs a new run.
	Final bool `json:"final,omitempty"`

	Text string `json:"text,omitempty"`

	ID     string         `json:"id,omitempty"`
	Tool   string         `json:"tool,omitempty"`
	Input  map[string]any `json:"input,omitempty"`
	Detail string         `json:"detail,omitempty"` // what the call acts on, in one string (preview.Detail)

	// decision
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Rule     string `json:"rule,omitempty"`
	Source   string `json:"source,omitempty"`
	Level    string `json:"level,omitempty"`
	Action   string `json:"action,omitempty"`

	// approval_request
	SuggestedRule string           `json:"suggested_rule,omitempty"`
	Options       []Answer         `json:"options,omitempty"`
	Limit         string           `json:"limit,omitempty"` // why some answers are not offered
	TimeoutS      int              `json:"timeout_s,omitempty"`
	Preview       *preview.Preview `json:"preview,omitempty"`

	// approval_resolved: the approved input was the person's edit
	Edited bool `json:"edited,omitempty"`

	// approval_resolved
	By string `json:"by,omitempty"`

	// rule_added
	List string `json:"list,omitempty"`

	// tool_result, result
	IsError    *bool    `json:"is_error,omitempty"`
	Content    *string  `json:"content,omitempty"`
	CostUSD    *float64 `json:"cost_usd,omitempty"`
	DurationMS *int64   `json:"duration_ms,omitempty"`

	// error, notice
	Message string `json:"message,omitempty"`

	// files_changed: the turn's folder of pre-turn copies, and the files
	// whose content differs from them at the end of the turn
	Dir   string         `json:"dir,omitempty"`
	Files []changes.File `json:"files,omitempty"`
}

// Writer writes Output lines; it is safe for concurrent use and remembers
// the first write error (the editor went away).
type Writer struct {
	mu     sync.Mutex
	w      *bufio.Writer
	enc    *json.Encoder
	err    error
	broken chan struct{} // closed at the first failed write
}

// NewWriter writes JSON Lines to w, flushing after every line.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 64*1024)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{w: bw, enc: enc, broken: make(chan struct{})}
}

// Broken is closed once a write failed (the reader went away: EPIPE).
func (w *Writer) Broken() <-chan struct{} { return w.broken }

func (w *Writer) setErr(err error) {
	if w.err == nil {
		w.err = err
		close(w.broken)
	}
}

// Write writes one line.
func (w *Writer) Write(o Output) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if err := w.enc.Encode(o); err != nil {
		w.setErr(err)
		return err
	}
	if err := w.w.Flush(); err != nil {
		w.setErr(fmt.Errorf("stdout: %w", err))
	}
	return w.err
}

func ptr[T any](v T) *T { return &v }
