package session

import "slices"

// Verdict is the engine's decision on one call: allow, ask or deny (the
// "decision" value set of docs/architecture.md's glossary). Its JSON is the
// plain string.
type Verdict string

// Decision values.
const (
	Allow Verdict = "allow"
	Ask   Verdict = "ask"
	Deny  Verdict = "deny"
)

// Decisions lists the decision values.
var Decisions = []Verdict{Allow, Ask, Deny}

// String returns the value as its plain string.
func (v Verdict) String() string { return string(v) }

// Valid reports whether v is one of the decision values.
func (v Verdict) Valid() bool { return slices.Contains(Decisions, v) }

// Sources of a decision.
const (
	SourceGuard     = "guard"
	SourceAutorun   = "autorun" // a file that runs code by itself (asks in every mode)
	SourceDenyList  = "deny_list"
	SourceSession   = "session"
	SourceAskList   = "ask_list"
	SourceAllowList = "allow_list"
	SourceMode      = "mode"
	SourcePreset    = "preset"
	SourceConfig    = "config"
)

// Layers a rule comes from (SPEC §11), highest first. A rule of the managed,
// user or project layer has the source "<layer>:<file>"
// ("project:.claude/settings.json"); the chat's own lists keep the sources
// above.
const (
	LayerManaged = "managed"
	LayerUser    = "user"
	LayerProject = "project"
	LayerChat    = "chat"
	LayerSession = "session"
)

// PolicyFile is what one policy file of the managed, user or project layer
// adds to the engine (the loader has already read it with its own syntax's
// meanings and dropped what waits for trust).
type PolicyFile struct {
	Layer string // LayerManaged, LayerUser or LayerProject
	Name  string // how sources name the file: "/etc/vibing/policy.yaml", "~/.claude/settings.json", ".vibing/policy.yaml"
	Allow []string
	Ask   []string
	Deny  []string
	// Mode is the file's permission mode ("" = none). A vibing policy
	// file's mode outranks the chat's; a Claude settings file's defaultMode
	// (Default set) is where a session starts, so the chat's own mode wins
	// over it.
	Mode    string
	Default bool
	// Untrusted are the allow rules of a project file the person has not
	// trusted (yet): they allow nothing, but an ask they would have
	// allowed says so (":VibingTrust").
	Untrusted []string
}

// Switches are the managed layer's switches (SPEC §11).
type Switches struct {
	DisableBypass        bool `json:"disable_bypass,omitempty"`         // no bypassPermissions mode, no "open" preset
	DisableAlways        bool `json:"disable_always,omitempty"`         // no always-allow answers
	DisableSessionGrants bool `json:"disable_session_grants,omitempty"` // no allow-for-session answers
	ManagedRulesOnly     bool `json:"managed_rules_only,omitempty"`     // the rules of every lower layer are ignored
}

// Decision is the outcome of the pipeline for one tool call.
type Decision struct {
	Decision Verdict `json:"decision"` // allow | ask | deny
	Reason   string  `json:"reason"`   // one human sentence
	Rule     string  `json:"rule"`     // the rule text that decided, or ""
	Source   string  `json:"source"`
	Level    string  `json:"level"`
	Action   string  `json:"action"`
	// Once is set on an ask that comes from a tool's "once" policy: after the
	// person approves, the runner calls GrantOnce so the tool is allowed for
	// the rest of the session.
	Once bool `json:"-"`
	// Limit, when set, says why the person may answer this ask only once
	// (a managed ask, or a managed switch that turns off always and
	// session answers); NoAlways and NoSession say which answers are off.
	Limit     string `json:"limit,omitempty"`
	NoAlways  bool   `json:"no_always,omitempty"`
	NoSession bool   `json:"no_session,omitempty"`
}

// Options say where and how a chat's calls are decided.
type Options struct {
	Cwd          string // working directory (absolute); default: the process's
	Home         string // home directory; default: os.UserHomeDir
	ChatFile     string // the chat file (guarded)
	ProjectRoot  string // folder whose .vibing/ is guarded; default: Cwd
	ConfigFile   string // the user's config file (guarded)
	Resumed      bool   // force resumed behaviour (else: settings.SessionID != "")
	Fresh        bool   // the chat's live run started a fresh session: not resumed, whatever its session_id
	SessionAllow []string
	SessionDeny  []string

	// Policy holds the rules of the managed, user and project layers, in
	// that order (SPEC §11); Switches the managed switches.
	Policy   []PolicyFile
	Switches Switches
	// Broken, when set, makes the engine refuse every call with this error
	// (a policy file that cannot be read).
	Broken error
	// Guard lists more paths no tool may modify: every policy file of
	// every layer (present or not), the trust store, the binary.
	Guard []string
	// Reference makes the engine the slow twin of the usual one: it
	// decides as that one does without any shortcut taken for speed (its
	// rules and calls are the matcher's reference ones, its rule sets are
	// not cut per call, a read's path is always resolved). The tests hold
	// the usual engine to it; the sandbox's view is made with it.
	Reference bool
}
