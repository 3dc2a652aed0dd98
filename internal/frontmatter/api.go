package frontmatter

// This file is the package's contract with internal/session, internal/rpc,
// internal/run and the command line. Keep the exported names stable.

import "errors"

// Frontmatter keys.
const (
	KeyVibing     = "vibing.nvim"
	KeySessionID  = "session_id"
	KeyCreatedAt  = "created_at"
	KeyWorkingDir = "working_dir"
	KeyMode       = "permissions_mode"
	KeyModeAlias  = "permission_mode"
	KeyPreset     = "permissions_preset"
	KeyAllow      = "permissions_allow"
	KeyAsk        = "permissions_ask"
	KeyDeny       = "permissions_deny"
	KeyModel      = "model"
	// KeyForkOf names the session a forked chat continues: its first run
	// resumes that session with --fork-session, until its own session_id
	// is written.
	KeyForkOf = "fork_of"
)

// Errors.
var (
	ErrNoFrontmatter = errors.New("chat has no frontmatter (it must start with a line '---')")
	ErrMalformed     = errors.New("malformed frontmatter")
)

// Settings are the chat settings read from the frontmatter.
type Settings struct {
	Vibing     bool     `json:"vibing"`
	SessionID  string   `json:"session_id,omitempty"`
	CreatedAt  string   `json:"created_at,omitempty"`
	WorkingDir string   `json:"working_dir,omitempty"`
	Mode       string   `json:"mode,omitempty"` // permissions_mode, or its alias permission_mode
	Preset     string   `json:"preset,omitempty"`
	Allow      []string `json:"allow"`
	Ask        []string `json:"ask"`
	Deny       []string `json:"deny"`
	Model      string   `json:"model,omitempty"`
	ForkOf     string   `json:"fork_of,omitempty"`
	// ModeNote says which key set the mode when both mode keys are present
	// with different values ("" otherwise).
	ModeNote string `json:"mode_note,omitempty"`
}
