package command

// This file is the package's contract with internal/session, internal/rpc and
// internal/run. Keep the exported names and signatures stable.

import (
	"strings"
	"sync"
	"sync/atomic"

	"mvdan.cc/sh/v3/syntax"

	"vibing/internal/tools"
)

// Env is where a call's paths are resolved.
type Env struct {
	Cwd  string // absolute working directory; rules without a leading / are anchored here
	Home string // the user's home directory, for ~

	// Shell is where a Bash line starts when that is not Cwd: Claude Code's
	// Bash keeps a cd from one call to the next (its hook input names the
	// folder as "cwd"). The line's relative paths resolve from these folders
	// (from each when there are several), while rules stay anchored at Cwd.
	// Empty means Cwd. See ShellAfter.
	Shell []string
	// ShellLost says the line may start in a folder not in Shell (an earlier
	// line moved the shell somewhere only known at run time): its relative
	// paths fail closed, as after an unknown cd.
	ShellLost bool

	dirs *envDirs // Cwd and Home resolved, for an Env made by NewEnv (realDirs)
}

// Path is a path from a tool call, resolved for matching.
type Path struct {
	Raw  string // as the tool call gave it
	Abs  string // absolute, cleaned, ~ expanded
	Real string // Abs with symlinks resolved (longest existing prefix); == Abs when none

	Unsure   bool        // from a Bash word whose value is only known at run time (or after an unknown cd)
	inside   bool        // stands for some file below Abs whose name is not known (cp x dir/, unzip -d dir, a ** pattern)
	Tree     bool        // inside, because a command reads the whole folder (tar, grep -r): existing files are looked for
	MayWrite bool        // a Bash argument of a command that may write it (deny Edit/Write rules look at it)
	Meta     bool        // a Bash argument of a command that looks at its name only (ls, stat): Read rules skip it
	Removes  bool        // inside, and the command removes what it finds there (find -delete, git clean)
	Names    [][]namePat // inside, from find -name ... -delete: only entries with such a name (findnames.go)
	looked   *fileStat   // what the look-up of Real said while resolving it, when it was looked up (hardlink.go)
}

// Inside reports whether p stands for some file below Abs whose name is
// not known (cp -r x dir/, tar x -C dir, git clean).
func (p *Path) Inside() bool { return p.inside }

// DenyOnly reports whether the command is one the engine only supposes may
// run (an argument of a program it does not know) or whose output was
// folded into a word: deny and ask rules look at it, allow rules need not
// cover it.
func (c *Command) DenyOnly() bool { return c.denyOnly }

// argsSame reports whether Args is Words itself (no wrapper was seen
// through): a test of the one answers for the other.
func (c *Command) ArgsSame() bool {
	return len(c.Args) == len(c.Words) && (len(c.Args) == 0 || &c.Args[0] == &c.Words[0])
}

// Lead is the one word a deny or ask command rule is tried against as the
// command's first word, when there is only one: the command word holds no
// "/" (no base name is tried besides it), no wrapper was seen through and
// no other reading of the command (brace expansion, a runner's argument)
// was added. "" when there are several, or for a command Prepare did not
// walk; the matcher then tries them all.
func (c *Command) Lead() string { return c.lead }

// setLead sets Lead once the command is walked whole.
func (c *Command) setLead() {
	if len(c.Words) > 0 && c.ArgsSame() && len(c.More().Alts) == 0 && strings.IndexByte(c.Words[0], '/') < 0 {
		c.lead = c.Words[0]
	}
}

// Command is one simple command of a parsed Bash line.
type Command struct {
	Words    []string // words as the shell would run them, leading assignments stripped
	Args     []string // Words with wrappers (sudo, env, nice, timeout, xargs, ...) seen through
	Text     string   // Words joined by single spaces (for exact/prefix/regex matching)
	Dynamic  bool     // some word holds an expansion that cannot be resolved statically
	Pipeline int      // id of the pipeline this command stands in (commands joined by | share it)
	Index    int      // position inside that pipeline (0 = first)

	parent      int              // index of the command running this one (sh -c, eval, $(..) in its words); -1 for none
	DynamicName bool             // the command word itself is dynamic
	unseen      string           // why the engine cannot see what this command runs ("" = it can): every deny/ask rule fires
	denyOnly    bool             // a command the engine supposes may run (an unknown program's argument): deny/ask rules only
	node        *syntax.CallExpr // where the command stands in the parsed line

	BraceOverflow bool   // the braces expand past maxBraceWords: deny/ask treat the command as matching
	ro, roKnown   bool   // ReadOnly, once the line is walked (the guard and the autorun step both ask)
	lead          string // Lead: the one first word a command rule is tried as, set by Prepare ("" = several, or not known)

	Dirs     []string // the folders the command may run in (for the default rules); nil = the working folder
	DirsFrom uint8    // 0: dirs are where the shell is; dirsUnknown: a cd went somewhere unknown; dirsFull: and the line named more folders than dirs holds
	rare     *cmdRare // what few commands have (redirections, leading assignments); nil when none
}

// cmdRare holds the parts of a Command most commands do not have, so the
// common command stays small.
type cmdRare struct {
	Outs     []string      // the files its redirections write (> x, >> x, &> x)
	Ins      []string      // the files its redirections read (< x)
	stdin    string        // the file its standard input is redirected from (< x), when one redirection names it
	stdinDoc *string       // the text of a literal here-document or here-string it reads as its standard input
	Assigns  []string      // the names of the variables assigned before the command
	codeVars []namedScript // variables before the command that hold a command (GIT_EXTERNAL_DIFF=...)

	Dyn          []bool     // per word of Words: only known at run time (nil when none is)
	Wrappers     []string   // wrapper commands seen through (sudo, env, ...)
	Alts         [][]string // further word lists deny rules are tried against
	expanded     []string   // Words after brace expansion; nil when no word has braces
	expandedArgs []string   // expanded with wrappers seen through
	computed     []string   // the words computed at run time that may name files (for file rules)
}

var noRare cmdRare

// more returns the command's rare parts for reading (never nil).
func (c *Command) More() *cmdRare {
	if c.rare == nil {
		return &noRare
	}
	return c.rare
}

// setMore returns the command's rare parts for writing.
func (c *Command) setMore() *cmdRare {
	if c.rare == nil {
		c.rare = &cmdRare{}
	}
	return c.rare
}

// Call is one tool call prepared for matching: parsed and resolved once, then
// matched against any number of rules.
type Call struct {
	Tool  string         // tool name as the agent sent it, canonicalised where known
	Input map[string]any // the raw input
	Env   Env

	Err error // the input could not be understood (missing/ill-typed field, unparseable shell or URL)

	// Bash
	Command  string    // the command line as given
	Commands []Command // every simple command, including those inside sh -c / eval scripts, substitutions, functions
	Writes   []Path    // redirection targets and tee targets (checked as Write(path))
	Modifies []Path    // arguments of file-changing commands (rm, mv, cp, sed -i, tee, truncate, chmod, chown, ln, touch, ...) plus Writes
	ForkBomb bool      // a function that calls itself in the background through a pipe

	// file tools (and the search root of Glob/Grep/LS when given)
	Path *Path

	// WebFetch
	URL    string // as given
	Scheme string // lower-cased
	Host   string // lower-cased, trailing dot dropped, punycode; port and user-info ignored

	// Glob, Grep, WebSearch (query), Task/Agent (subagent_type)
	Pattern string

	Detail string // the detail part of the action string

	// The tool's facts, fixed once by Prepare (or Bare) from the tool
	// table: the layers above read these rather than ask the table again.
	Info  *tools.Info // the tool's entry in the table; nil for an unknown or MCP tool
	Level tools.Level // its permission level (an unknown or MCP tool is mutating: tools.LevelIn)
	Edits bool        // the tool changes files (Info.Edit: Edit rules and acceptEdits speak for it)
	Key   string      // the tool's name as tools.Same compares names (tools.SameKey)
	Lower string      // the tool's name lower-cased, for regex rules written as tool:bash:...
	// RunsCommand: a tool other than Bash whose call runs a shell command
	// (Monitor; an MCP or unknown tool whose input has a "command"), which
	// is also decided as Bash; RunCommand is that command, "" when it is
	// not a string (tools.CommandIn)
	RunsCommand bool
	RunCommand  string
	// BashView is, for a call that RunsCommand, the same command prepared
	// as a Bash call (a PowerShell line in the spelling Bash rules use:
	// posixSpelling), so that the guard, the Bash deny and ask rules, the
	// default deny rules and the files-that-run-code step read it as they
	// read Bash. An allow for such a call comes from a rule that names the
	// tool itself or from Bash allow rules that cover the command. nil for
	// every other call (Bash itself included).
	BashView *Call
	// Reach is, for a call prepared against a guarded set (How.Guard),
	// which guarded path it may modify (Reaches): asked once, in Prepare,
	// and read by the guard.
	Reach Reach
	// Cut is what a set of rules may be cut down by for this call, worked
	// out in Prepare (not for the slow twin: PrepareReference leaves it
	// zero, and a zero Cut cuts nothing).
	Cut Cut

	action   string     // Action(), worked out once in Prepare
	owner    *fileCall  // the file call this is part of, for Release; nil for other calls
	bash     *bashCall  // the Bash call this is part of, for Release; nil for other calls
	Actions  []string   // regex action strings: one per simple command, then the whole line
	wrapped  []string   // Bash: action strings of commands behind wrappers (deny/ask regexes)
	RealCwd  string     // Env.Cwd with symlinks resolved
	RealHome string     // Env.Home with symlinks resolved
	Views    *PathViews // Path as the file rules read it, worked out once in Prepare (match.go)
	// fileViews: views hold every reading a path rule takes of the call (a
	// file tool's own path, not the folder a search reads below)
	FileViews bool
	// ref: the slow twin (PrepareReference), which takes no shortcut
	ref bool

	args          *bashArgs // Bash: argument words, checked against deny/ask file rules
	BraceOverflow bool      // Bash: some command's braces expand past maxBraceWords
	DirOverflow   bool      // Bash: a relative path after an unknown cd has more folders to try than are tried
	shellAfter    *dirState // Bash: where the shell may be once the line ran (ShellAfter)
	starts        []string  // Bash: the folders the line starts in (Env.shellDirs), worked out once by the walk
	CdUnknown     bool      // Bash: a cd, pushd or popd of the line goes to a folder only known at run time (cdKnown)
	cwdStart      [1]string // Bash: the backing of starts when the line starts in Cwd
	lazyActs      bool      // Bash: the commands' action strings are left out of actions and built by acts
	actsOnce      sync.Once // builds actsAll
	actsAll       []string  // Bash: the commands' action strings, then actions (acts)

	UnseenCmd string   // Bash: the first reason some command cannot be seen through (noteUnseen)
	unseenArg string   // Bash: the first argument only known at run time, as a reason
	LostRel   []string // Bash: relative file operands after a cd to a folder only known at run time (lostReason)

	RegexSpent atomic.Int64 // nanoseconds spent in regex rules on this call, bounded by regexBudget

	scopeOnce sync.Once                // Grep, Glob, LS: what the search reads, worked out on first use
	search    *SearchScope             // (see search.go)
	net       atomic.Pointer[netHosts] // Bash: the hosts the line may contact (hosts.go), worked out on first need
	stats     sync.Map                 // path -> fileStat: one stat per path per call (hardlink.go)
	looks     atomic.Pointer[lookups]  // Lstat of names the guard and the file rules share (lookup.go)
}

// Action returns the Chorus-style action string tool:<Tool>:<detail>.
func (c *Call) Action() string {
	if c.action != "" {
		return c.action // Prepare worked it out; Tool and Detail do not change after it
	}
	return "tool:" + c.Tool + ":" + c.Detail
}

// Cut holds the keys a rule set is cut down by for one call: a rule that
// speaks of none of them cannot match it (session's index keeps a cut set
// per key).
type Cut struct {
	// Keys are a Bash line's command keys (commandKeys); KeysOK says
	// cutting by them is sound.
	Keys   []string
	KeysOK bool
	// Dirs[:N] are the folders of a file tool's one path (CwdDirs); DirsOK
	// says cutting by them is sound.
	Dirs   [3]string
	N      int
	DirsOK bool
}
