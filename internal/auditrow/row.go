// Package auditrow is the audit row: the one type every writer and reader of
// the audit trail shares (the runner, the SQLite log, the hook's spool, the
// export), and the outcomes a row records. It imports nothing of vibing's,
// so the lean build (check, hook) links it as cheaply as the full one.
package auditrow

import (
	"slices"
	"time"
)

// Outcome is what a row records about its call: one of the constants below.
// Its JSON and SQLite encodings are the plain string.
type Outcome string

// Outcomes a row records.
const (
	Allow       Outcome = "allow"
	Deny        Outcome = "deny"
	AskApproved Outcome = "ask_approved"
	AskDenied   Outcome = "ask_denied"
	AskTimeout  Outcome = "ask_timeout"
	// AskPending marks a call being asked: the row is written when the
	// approval is asked and rewritten with the outcome (same Key) when it
	// is resolved, so a run killed meanwhile leaves a trace of the call.
	AskPending Outcome = "ask_pending"
	// Outcomes of `vibing-agent hook`, which never learns the outcome of
	// what it hands back to Claude Code: "ask_cli" went to the CLI's own
	// prompt, "defer" left the call to the CLI's own rules and mode.
	AskCLI Outcome = "ask_cli"
	Defer  Outcome = "defer"
)

// Outcomes lists every outcome a row records.
var Outcomes = []Outcome{Allow, Deny, AskApproved, AskDenied, AskTimeout, AskPending, AskCLI, Defer}

// Valid reports whether d is one of the recorded outcomes.
func Valid(d string) bool {
	return slices.Contains(Outcomes, Outcome(d))
}

// Entry is one audit row: one per tool call, with its final outcome. An
// asked call is written twice under the same Key: ask_pending when asked,
// then its outcome, which replaces the first.
type Entry struct {
	// Time comes first: the spool finds whole rows by how they begin.
	Time      time.Time `json:"time"`
	Chat      string    `json:"chat"`
	SessionID string    `json:"session_id"`
	Tool      string    `json:"tool"`
	Action    string    `json:"action"`
	Decision  string    `json:"decision"` // one of the outcomes above (an Outcome)
	Rule      string    `json:"rule"`
	Source    string    `json:"source"` // the engine's: deny_list, mode, user:~/.config/vibing/policy.yaml...
	// Via names what decided and wrote the row: run (a chat's agent), hook
	// (vibing-agent hook in a Claude Code session), mention (the @-mentions
	// of a message the editor sends); "" for a row of an older vibing-agent.
	Via    string `json:"via,omitempty"`
	Reason string `json:"reason"`
	// Key names one tool call of one run. A second Record with the same Key
	// rewrites that call's row (an ask_pending row gets its outcome) instead
	// of adding one; an empty Key always adds a row.
	Key string `json:"-"`
	// InputSHA256 is the hex SHA-256 of the input an answered approval was
	// about (what ran, when approved; its JSON with sorted keys); "" for
	// calls nobody was asked about.
	InputSHA256 string `json:"input_sha256,omitempty"`
	Edited      bool   `json:"edited,omitempty"` // the person edited the input before approving it
	// Resumed says whether the call was decided in a resumed session (its
	// approval prompts off, SPEC resume_ask); nil for a row of a
	// vibing-agent that did not record it.
	Resumed *bool `json:"resumed,omitempty"`
	// Cwd is the working directory of the engine that decided the call
	// (absolute), where its relative rules resolved; "" for a row of a
	// vibing-agent that did not record it.
	Cwd string `json:"cwd,omitempty"`
	// ToolUseID is the model's id of the call, the one Claude Code's own
	// events carry (tool_use_id), so both streams join; "" when unknown.
	ToolUseID string `json:"tool_use_id,omitempty"`
	// Mode is the permission mode the call was decided in; "" when unknown.
	Mode string `json:"mode,omitempty"`
	// Layer is the layer and file of what decided when Source names the
	// writer instead (the hook's rows: Source "hook"); "" otherwise.
	Layer string `json:"layer,omitempty"`
}
