package tools

import (
	"sort"
	"strings"
)

// Level is a tool's permission level.
type Level string

// The permission levels.
const (
	ReadOnly Level = "read_only"
	Mutating Level = "mutating"
	Network  Level = "network"
)

// ArgKind says what a rule's argument means for a tool: `Tool(arg)`.
type ArgKind int

// The argument kinds.
const (
	ArgNone    ArgKind = iota // the tool takes no argument in rules
	ArgCommand                // a shell command pattern (Bash)
	ArgPath                   // a file glob on the tool's path
	ArgDomain                 // a host pattern on the tool's URL
	ArgPattern                // the tool's pattern argument, exactly
)

func (k ArgKind) String() string {
	switch k {
	case ArgCommand:
		return "command"
	case ArgPath:
		return "path"
	case ArgDomain:
		return "domain"
	case ArgPattern:
		return "pattern"
	}
	return "none"
}

// Family is what a file tool does with its path, which says what rules of
// other tools speak for it: Edit and Write rules for every tool that edits
// files, Read rules for every tool that reads them (matcher.Rule.Speaks).
type Family uint8

// The families, as bits.
const (
	FamilyEdit Family = 1 << iota // changes files: Write, Edit, MultiEdit, NotebookEdit
	FamilyRead                    // reads files by path: Read, NotebookRead and the searches Grep, Glob, LS
)

// Info describes one known tool.
type Info struct {
	Name    string  // canonical spelling
	Level   Level   // permission level
	Arg     ArgKind // what a rule argument means
	PathKey string  // input key holding the path, for ArgPath tools and searches
	Example string  // an example rule, for error messages and help
	Edit    bool    // the tool changes files (covered by Edit rules / acceptEdits)
	Family  Family  // which file rules speak for it besides its own (Edit and Write rules, Read rules)
	// Command is the input key holding a shell command the tool runs: such a
	// call is also matched as Bash (SPEC §4). Unknown and MCP tools whose
	// input has a "command" string are treated the same way (see Command).
	Command string

	lower  string // Name lower-cased (LowerName)
	action string // "tool:" + Name + ":" (ActionPrefix)
}

// LowerName is the tool's name lower-cased, worked out once.
func (in *Info) LowerName() string {
	if in.lower == "" {
		return strings.ToLower(in.Name)
	}
	return in.lower
}

// ActionPrefix is "tool:<Name>:", how the action string of the tool's
// calls starts, worked out once.
func (in *Info) ActionPrefix() string {
	if in.action == "" {
		return "tool:" + in.Name + ":"
	}
	return in.action
}

var known = []Info{
	{Name: "Bash", Level: Mutating, Arg: ArgCommand, Example: "Bash(npm test:*)", Command: "command"},
	{Name: "Monitor", Level: Mutating, Example: "Monitor", Command: "command"},
	{Name: "Read", Level: ReadOnly, Arg: ArgPath, PathKey: "file_path", Example: "Read(src/**/*.ts)", Family: FamilyRead},
	{Name: "Write", Level: Mutating, Arg: ArgPath, PathKey: "file_path", Example: "Write(*.json)", Edit: true, Family: FamilyEdit},
	{Name: "Edit", Level: Mutating, Arg: ArgPath, PathKey: "file_path", Example: "Edit(config/*.yaml)", Edit: true, Family: FamilyEdit},
	{Name: "MultiEdit", Level: Mutating, Arg: ArgPath, PathKey: "file_path", Example: "MultiEdit(src/**)", Edit: true, Family: FamilyEdit},
	{Name: "NotebookEdit", Level: Mutating, Arg: ArgPath, PathKey: "notebook_path", Example: "NotebookEdit(*.ipynb)", Edit: true, Family: FamilyEdit},
	{Name: "NotebookRead", Level: ReadOnly, Arg: ArgPath, PathKey: "notebook_path", Example: "NotebookRead(*.ipynb)", Family: FamilyRead},
	{Name: "LS", Level: ReadOnly, Arg: ArgPath, PathKey: "path", Example: "LS(src/**)", Family: FamilyRead},
	{Name: "Glob", Level: ReadOnly, Arg: ArgPattern, PathKey: "path", Example: "Glob(*.js)", Family: FamilyRead},
	{Name: "Grep", Level: ReadOnly, Arg: ArgPattern, PathKey: "path", Example: "Grep(TODO)", Family: FamilyRead},
	{Name: "WebFetch", Level: Network, Arg: ArgDomain, Example: "WebFetch(github.com)"},
	{Name: "WebSearch", Level: Network, Arg: ArgPattern, Example: "WebSearch(golang generics)"},
	{Name: "Task", Level: Mutating, Arg: ArgPattern, Example: "Task(general-purpose)"},
	{Name: "Agent", Level: Mutating, Arg: ArgPattern, Example: "Agent(general-purpose)"},
	{Name: "TodoWrite", Level: ReadOnly, Example: "TodoWrite"},
	{Name: "ToolSearch", Level: ReadOnly, Example: "ToolSearch"},
	{Name: "BashOutput", Level: ReadOnly, Example: "BashOutput"},
	{Name: "KillShell", Level: Mutating, Example: "KillShell"},
	{Name: "KillBash", Level: Mutating, Example: "KillBash"},
	{Name: "ExitPlanMode", Level: ReadOnly, Example: "ExitPlanMode"},
	{Name: "ListMcpResourcesTool", Level: ReadOnly, Example: "ListMcpResourcesTool"},
	{Name: "ReadMcpResourceTool", Level: ReadOnly, Example: "ReadMcpResourceTool"},
	{Name: "SlashCommand", Level: Mutating, Example: "SlashCommand"},
	{Name: "Skill", Level: Mutating, Example: "Skill"},
	// the pinned claude CLI's other tools (its system/init event lists them)
	{Name: "AskUserQuestion", Level: Mutating, Example: "AskUserQuestion"},
	{Name: "EnterPlanMode", Level: ReadOnly, Example: "EnterPlanMode"},
	{Name: "EnterWorktree", Level: Mutating, Example: "EnterWorktree"},
	{Name: "ExitWorktree", Level: Mutating, Example: "ExitWorktree"},
	{Name: "CronCreate", Level: Mutating, Example: "CronCreate"},
	{Name: "CronDelete", Level: Mutating, Example: "CronDelete"},
	{Name: "CronList", Level: ReadOnly, Example: "CronList"},
	{Name: "ScheduleWakeup", Level: Mutating, Example: "ScheduleWakeup"},
	{Name: "ListAgents", Level: ReadOnly, Example: "ListAgents"},
	{Name: "SendMessage", Level: Mutating, Example: "SendMessage"},
	{Name: "ReportFindings", Level: ReadOnly, Example: "ReportFindings"},
	{Name: "TaskStop", Level: Mutating, Example: "TaskStop"},
	{Name: "TaskCreate", Level: ReadOnly, Example: "TaskCreate"},
	{Name: "TaskGet", Level: ReadOnly, Example: "TaskGet"},
	{Name: "TaskList", Level: ReadOnly, Example: "TaskList"},
	{Name: "TaskUpdate", Level: ReadOnly, Example: "TaskUpdate"},
	{Name: "TaskOutput", Level: ReadOnly, Example: "TaskOutput"},
	{Name: "Workflow", Level: Mutating, Example: "Workflow"},
}

// Learn adds tools the CLI offers that the table does not know (from its
// system/init event, remembered between runs): a rule may name them. They
// take no argument and are mutating (when in doubt, ask). Call it once at
// start-up, before any lookup runs: the tables are not locked.
func Learn(names []string) {
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || IsMCP(n) || strings.ContainsAny(n, " \t()/*") {
			continue
		}
		if _, ok := byLower[strings.ToLower(n)]; ok {
			continue
		}
		known = append(known, Info{Name: n, Level: Mutating, Example: n, lower: strings.ToLower(n), action: "tool:" + n + ":"})
		in := &known[len(known)-1]
		byName[n] = in
		byLower[strings.ToLower(n)] = in
	}
}

var byName = func() map[string]*Info {
	m := make(map[string]*Info, len(known))
	for i := range known {
		known[i].lower = strings.ToLower(known[i].Name)
		known[i].action = "tool:" + known[i].Name + ":"
		m[known[i].Name] = &known[i]
	}
	return m
}()

var byLower = func() map[string]*Info {
	m := make(map[string]*Info, len(known))
	for i := range known {
		m[strings.ToLower(known[i].Name)] = &known[i]
	}
	return m
}()

// IsMCP reports whether name is an MCP tool or server name (mcp__server[__tool]).
func IsMCP(name string) bool {
	return strings.HasPrefix(strings.ToLower(name), "mcp__")
}

// Lookup returns the tool named name, case-insensitively. MCP names and
// unknown names report ok=false.
func Lookup(name string) (Info, bool) {
	if in := Find(name); in != nil {
		return *in, true
	}
	return Info{}, false
}

// Find is Lookup without the copy: the tool's entry in the table, which
// the caller must not change, or nil.
func Find(name string) *Info {
	if in, ok := byName[name]; ok { // the common case: already canonical, no allocation
		return in
	}
	return byLower[strings.ToLower(name)]
}

// Canonical returns the canonical spelling of a known tool name; MCP names are
// kept as written with their "mcp__" prefix lower-cased; unknown names are
// returned unchanged with ok=false.
func Canonical(name string) (string, bool) {
	if in := Find(name); in != nil {
		return in.Name, true
	}
	if IsMCP(name) {
		return "mcp__" + name[5:], true
	}
	return name, false
}

// LevelOf returns the permission level of a tool. Unknown tools and MCP tools
// are mutating: when in doubt, ask.
func LevelOf(name string) Level { return LevelIn(Find(name)) }

// LevelIn is LevelOf for the tool in (Find's answer; nil for an unknown
// or MCP tool).
func LevelIn(in *Info) Level {
	if in != nil {
		return in.Level
	}
	return Mutating
}

// CommandOf returns the shell command a call of a tool other than Bash
// runs, if any: the Command input of a known tool that has one (Monitor),
// or the "command" of an unknown or MCP tool (ok with "" when it is not a
// string: a command that cannot be read). Known tools whose
// "command" is not shell text (SlashCommand: a slash command's name) have
// none.
func CommandOf(tool string, input map[string]any) (string, bool) {
	return CommandIn(Find(tool), input)
}

// CommandIn is CommandOf for the tool in (Find's answer; nil for an
// unknown or MCP tool).
func CommandIn(in *Info, input map[string]any) (string, bool) {
	if in != nil && (in.Command == "" || in.Name == "Bash") {
		return "", false // (small enough to be inlined: most calls stop here)
	}
	return commandIn(in, input)
}

// commandIn is CommandIn for a tool that may run a command.
func commandIn(in *Info, input map[string]any) (string, bool) {
	key := "command"
	if in != nil {
		key = in.Command
	}
	v, present := input[key]
	if !present {
		return "", false
	}
	s, _ := v.(string) // not a string: a command that cannot be read (fails closed as Bash)
	return s, true
}

// Names returns the canonical names of all known tools, sorted.
func Names() []string {
	out := make([]string, 0, len(known))
	for _, in := range known {
		out = append(out, in.Name)
	}
	sort.Strings(out)
	return out
}

// EditTools are the tools covered by an Edit rule.
var EditTools = []string{"Edit", "MultiEdit", "NotebookEdit"}

// Same reports whether two tool names denote the same tool; Task and Agent are
// one tool under two names. It is SameKey(a) == SameKey(b).
func Same(a, b string) bool { return SameKey(a) == SameKey(b) }

// SameKey is the spelling under which Same compares a tool's name:
// lower-cased, Agent spelt as Task. A caller that compares one name with
// many works it out once for each.
func SameKey(name string) string { return SameKeyLower(strings.ToLower(name)) }

// SameKeyLower is SameKey of a name that is lower-cased already
// (Info.LowerName).
func SameKeyLower(lower string) string {
	if lower == "agent" {
		return "task"
	}
	return lower
}

// Facts is what the table says of one call's tool, in one answer
// (FactsOf): its entry, its canonical name and that name lower-cased, its
// permission level, its name as Same compares names, and the shell command
// the call runs, if it runs one (CommandIn).
type Facts struct {
	Info        *Info // nil for an unknown or MCP tool
	Name, Lower string
	Level       Level
	Key         string
	Command     string
	RunsCommand bool
}

// FactsOf returns the facts of a call of the tool name with this input:
// one look-up in the table.
func FactsOf(name string, input map[string]any) Facts {
	f := Facts{Info: Find(name)}
	if in := f.Info; in != nil {
		f.Name, f.Lower = in.Name, in.LowerName()
	} else {
		f.Name, _ = Canonical(name)
		f.Lower = strings.ToLower(f.Name)
	}
	f.Level = LevelIn(f.Info)
	f.Key = SameKeyLower(f.Lower)
	f.Command, f.RunsCommand = CommandIn(f.Info, input)
	return f
}
