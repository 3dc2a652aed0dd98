package hook

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"vibing/internal/auditrow"
	"vibing/internal/auditspool"
	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/session"
)

// Hook events this package answers.
const (
	EventPreToolUse       = "PreToolUse"
	EventUserPromptSubmit = "UserPromptSubmit"
)

// Via is the audit via of every row the hook writes (its source is the
// engine's, as in every row).
const Via = "hook"

// The self-test of `hook status` (selfTests): its session id, and the
// variable status sets in the environment of the hook it runs. A hook that
// has both keeps the self-test's decisions out of the audit: they are no
// one's calls. Neither alone is enough: the CLI gives its sessions ids of
// its own, and a variable in the environment of a real session would
// otherwise hide its calls.
const (
	SelfTestSession = "vibing-hook-status"
	SelfTestEnv     = "VIBING_HOOK_SELF_TEST"
)

// Input is one hook input as Claude Code sends it on stdin.
type Input struct {
	SessionID      string          `json:"session_id"`
	TranscriptPath string          `json:"transcript_path"`
	Cwd            string          `json:"cwd"`
	PromptID       string          `json:"prompt_id"`
	PermissionMode string          `json:"permission_mode"`
	HookEventName  string          `json:"hook_event_name"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	ToolUseID      string          `json:"tool_use_id"`
	AgentID        string          `json:"agent_id"`
	AgentType      string          `json:"agent_type"`
	Prompt         string          `json:"prompt"`
	MCPServer      *struct {
		Name   string `json:"name"`
		Source string `json:"source"`
	} `json:"mcp_server"`
}

// Decider decides one tool call in the folder the agent's shell is in
// (session.Engine).
type Decider interface {
	DecideIn(tool string, input map[string]any, cwd string) session.Decision
}

var _ Decider = (*session.Engine)(nil)

// Hook answers hook inputs.
type Hook struct {
	// Load builds the engine for an input; mode is the CLI's permission
	// mode mapped to vibing's (Mode).
	Load func(in *Input, mode string) (Decider, error)
	// Record writes one audit row; an error refuses the call it records.
	Record func(auditspool.Entry) error
	// StandAside reports that the claude process behind this input is
	// one `vibing-agent run` started and gates itself (nil: never).
	StandAside func() bool
	// Chat is the --chat file, for audit rows ("" when none).
	Chat string
	// Home is the home directory, for "@~/x" mentions.
	Home string
	// SelfTest says that `hook status` started this hook ($SelfTestEnv):
	// rows of the SelfTestSession are not recorded.
	SelfTest bool
}

// Empty is the answer that leaves a call to the CLI's own rules and mode.
var Empty = []byte("{}")

// Handle answers one hook input. It always returns one JSON object, also
// when the input is unreadable or the engine fails or panics.
func (h *Hook) Handle(raw []byte) (out []byte) {
	event := EventPreToolUse
	defer func() {
		if r := recover(); r != nil {
			out = refuse(event, fmt.Sprintf("vibing-agent hook failed (%v), so the call is refused.", r))
		}
	}()
	var in Input
	if err := json.Unmarshal(raw, &in); err != nil {
		return refuse(event, fmt.Sprintf("vibing-agent hook could not read its input (%v), so the call is refused.", err))
	}
	switch in.HookEventName {
	case EventPreToolUse, "":
		return h.preToolUse(&in)
	case EventUserPromptSubmit:
		event = EventUserPromptSubmit
		return h.promptSubmit(&in)
	}
	return Empty // an event the hook is not installed for
}

// Mode maps the CLI's permission_mode to vibing's: the modes both know stay,
// anything else ("auto", a newer mode, none) decides as default.
func Mode(cliMode string) string {
	if config.ValidMode(cliMode) {
		return cliMode
	}
	return "default"
}

func (h *Hook) preToolUse(in *Input) []byte {
	tool := strings.TrimSpace(in.ToolName)
	if tool == "" {
		return denyAnswer("vibing-agent hook got a PreToolUse input without tool_name, so the call is refused.")
	}
	input := map[string]any{}
	if len(in.ToolInput) > 0 && string(in.ToolInput) != "null" {
		if err := json.Unmarshal(in.ToolInput, &input); err != nil || input == nil {
			return denyAnswer(fmt.Sprintf("vibing-agent hook could not read the tool_input of %s (it must be a JSON object), so the call is refused.", tool))
		}
	}
	if h.StandAside != nil && h.StandAside() {
		return Empty // vibing-agent run decides this claude's calls itself
	}
	eng, err := h.Load(in, Mode(in.PermissionMode))
	if err != nil {
		return h.recordedDeny(in, tool, fmt.Sprintf("vibing-agent hook could not load its rules (%v), so the call is refused.", err))
	}
	d := eng.DecideIn(tool, input, absOr(in.Cwd))
	row := auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: tool, Action: d.Action,
		Rule: d.Rule, Source: d.Source, Via: Via, Reason: d.Reason, ToolUseID: in.ToolUseID, Mode: Mode(in.PermissionMode), Layer: d.Source}
	row.Resumed, row.Cwd = replayOf(eng)
	var answer []byte
	switch {
	case d.Source == session.SourceMode:
		// only the mode speaks: the CLI's own mode stands
		row.Decision, row.Reason = string(auditrow.Defer), "left to Claude Code's own permission mode ("+d.Decision.String()+" in vibing's "+Mode(in.PermissionMode)+" mode: "+d.Reason+")"
		answer = Empty
	case d.Decision == session.Allow:
		row.Decision, answer = string(auditrow.Allow), decisionAnswer("allow", "vibing: "+d.Reason)
	case d.Decision == session.Ask:
		row.Decision, answer = string(auditrow.AskCLI), decisionAnswer("ask", "vibing: "+d.Reason)
	default:
		row.Decision, answer = string(auditrow.Deny), decisionAnswer("deny", "vibing: "+d.Reason)
	}
	if in.AgentID != "" {
		row.Reason += fmt.Sprintf(" (call of subagent %s, %s)", in.AgentID, in.AgentType)
	}
	if err := h.record(row); err != nil {
		return denyAnswer(fmt.Sprintf("vibing could not write the audit row for %s (%v), so the call is refused.", tool, err))
	}
	return answer
}

// replayOf is what audit --what-if needs to replay a call as eng decided
// it: whether eng decided as a resumed session (the hook's engine never
// does: the CLI shows its own prompts) and its working directory.
func replayOf(eng Decider) (*bool, string) {
	resumed := false
	if r, ok := eng.(interface{ Resumed() bool }); ok {
		resumed = r.Resumed()
	}
	cwd := ""
	if e, ok := eng.(interface{ Env() command.Env }); ok {
		cwd = e.Env().Cwd
	}
	return &resumed, cwd
}

// recordedDeny refuses a call and records that, as far as it can.
func (h *Hook) recordedDeny(in *Input, tool, reason string) []byte {
	_ = h.record(auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: tool, Decision: string(auditrow.Deny), Source: session.SourceConfig, Via: Via, Reason: reason,
		ToolUseID: in.ToolUseID, Mode: Mode(in.PermissionMode)})
	return denyAnswer(reason)
}

func (h *Hook) record(e auditspool.Entry) error {
	if h.Record == nil || (h.SelfTest && e.SessionID == SelfTestSession) {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	return h.Record(e)
}

// absOr returns p when it is an absolute path, else "" (the engine then
// starts from its working directory).
func absOr(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return ""
}

type preToolUseOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason"`
}

func decisionAnswer(decision, reason string) []byte {
	out, _ := json.Marshal(map[string]any{"hookSpecificOutput": preToolUseOutput{
		HookEventName: EventPreToolUse, PermissionDecision: decision, PermissionDecisionReason: reason}})
	return out
}

func denyAnswer(reason string) []byte { return decisionAnswer("deny", reason) }

// blockAnswer blocks a prompt: the CLI shows the reason and never sends it.
func blockAnswer(reason string) []byte {
	out, _ := json.Marshal(map[string]string{"decision": "block", "reason": reason})
	return out
}

// refuse is the fail-closed answer to an event.
func refuse(event, reason string) []byte {
	if event == EventUserPromptSubmit {
		return blockAnswer(reason)
	}
	return denyAnswer(reason)
}

// Refuse is the answer of a hook that cannot even read its input: a
// PreToolUse deny with reason.
func Refuse(reason string) []byte { return denyAnswer(reason) }
