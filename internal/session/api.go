package session

// Decision values.
const (
	Allow = "allow"
	Ask   = "ask"
	Deny  = "deny"
)

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

// Decision is the outcome of the pipeline for one tool call.
type Decision struct {
	Decision string `json:"decision"` // allow | ask | deny
	Reason   string `json:"reason"`   // one human sentence
	Rule     string `json:"rule"`     // the rule text that decided, or ""
	Source   string `json:"source"`
	Level    string `json:"level"`
	Action   string `json:"action"`
	// Once is set on an ask that comes from a tool's "once" policy: after the
	// person approves, the runner calls GrantOnce so the tool is allowed for
	// the rest of the session.
	Once bool `json:"-"`
}

// Options say where and how a chat's calls are decided.
type Options struct {
	Cwd          string // working directory (absolute); default: the process's
	Home         string // home directory; default: os.UserHomeDir
	ChatFile     string // the chat file (guarded)
	ProjectRoot  string // folder whose .vibing/ is guarded; default: Cwd
	ConfigFile   string // the user's config file (guarded)
	Resumed      bool   // force resumed behaviour (else: settings.SessionID != "")
	SessionAllow []string
	SessionDeny  []string
}
