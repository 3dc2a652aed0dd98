package command

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"vibing/internal/hostaddr"
	"vibing/internal/tools"
)

// Prepare parses and resolves one tool call for matching.
func Prepare(tool string, input map[string]any, env Env) *Call {
	return prepare(tool, input, env, true, false, nil)
}

// PrepareReference is Prepare for the slow twin of the matcher: a call
// that takes none of the shortcuts Prepare's calls take for speed (the
// readings of its path worked out beforehand for every rule, the end word
// and folders that rule sets are cut by, a Bash word resolved through the
// guard's look-up of it). Rules match it by their full test; the tests
// hold Prepare's calls to these.
func PrepareReference(tool string, input map[string]any, env Env) *Call {
	return prepare(tool, input, env, true, true, nil)
}

// PrepareUnresolved is Prepare without resolving the symlinks of a file
// tool's path (Path.Real is Path.Abs), for a caller that knows nothing it
// decides depends on where the path lands. A Bash line is prepared in full.
func PrepareUnresolved(tool string, input map[string]any, env Env) *Call {
	return prepare(tool, input, env, false, false, nil)
}

// How says how PrepareHow works a call out: Reference as PrepareReference
// does (it wins over Unresolved), Unresolved as PrepareUnresolved does,
// neither as Prepare does. Guard, when set, is the guarded set the call's
// Reach is worked out against.
type How struct {
	Reference, Unresolved bool
	Guard                 *Guarded
}

// PrepareHow is Prepare, PrepareReference or PrepareUnresolved as how
// says: one entry for a caller that chooses per call.
func PrepareHow(tool string, input map[string]any, env Env, how How) *Call {
	return prepare(tool, input, env, how.Reference || !how.Unresolved, how.Reference, how.Guard)
}

// fileCall is a Call together with the parts a call with a path holds,
// so that preparing a file tool's call costs one allocation for all of
// them, or none when Release gave one back.
type fileCall struct {
	Call
	path  Path
	views PathViews
	acts  [2]string // backing of Call.actions
}

// fileCalls holds the file calls given back by Release, zeroed: a decision
// is made many times a second, and what it allocates the collector must
// reclaim (a file call is most of it).
var fileCalls = sync.Pool{New: func() any { return new(fileCall) }}

// bashCall is a Bash Call together with what walking its line needs
// (the walker, the first commands, words, paths and look-ups), so that a
// Bash call costs one allocation for all of them, or none when Release gave
// one back. What outgrows a backing array here is allocated as before.
type bashCall struct {
	Call
	walker shellWalker
	looks  lookups
	args   bashArgs
	cmds   [4]Command
	slab   [8]string // the first words of the line's commands (wordSlice)
	writes [1]Path
	mods   [2]Path
	acts   [1]string // backing of Call.actions
	keys   [8]string // backing of Call.Cut.Keys
	rare   cmdRare   // the rare parts of the first command with redirections (shellWalker.setMore)
	// rareUsed: rare belongs to a command
	rareUsed bool
}

// reset zeroes bc: the call and its walker whole (but for the program
// table's answers the walker keeps, progBits), and of the room it keeps
// what the call used (the rest is zero already). Clearing a pointer while
// the collector marks costs a write barrier, so the unused room is not
// cleared again (TestReleaseBashCallZeroes holds reset to the zero value).
func (bc *bashCall) reset() {
	c := &bc.Call
	// (Commands, Writes and Modifies only grow: what they hold of the room
	// is a prefix of it)
	clear(bc.cmds[:min(len(c.Commands), len(bc.cmds))])
	clear(bc.writes[:min(len(c.Writes), len(bc.writes))])
	clear(bc.mods[:min(len(c.Modifies), len(bc.mods))])
	clear(bc.looks.buf[:bc.looks.n])
	clear(bc.looks.room[:bc.looks.used])
	bc.looks.n, bc.looks.used = 0, 0
	if c.args != nil {
		// (refs only grows: what it holds of first is a prefix of it)
		clear(bc.args.first[:min(len(bc.args.refs), len(bc.args.first))])
		bc.args.refs, bc.args.seen, bc.args.paths, bc.args.globOverflow = nil, nil, nil, false
		bc.args.once = sync.Once{}
	}
	if bc.rareUsed {
		bc.rare, bc.rareUsed = cmdRare{}, false
	}
	bc.slab, bc.acts, bc.keys = [8]string{}, [1]string{}, [8]string{}
	w := &bc.walker // (the program table's answers are kept: they hold no string)
	bc.walker = shellWalker{progNames: w.progNames, progVals: w.progVals, progNext: w.progNext}
	bc.Call = Call{}
}

// setMore is c.setMore, for a command of a Bash call Prepare made taking
// the rare parts the call keeps room for (the first command that needs them).
func (w *shellWalker) setMore(c *Command) *cmdRare {
	if bc := w.c.bash; bc != nil && c.rare == nil && !bc.rareUsed {
		bc.rareUsed = true
		c.rare = &bc.rare
	}
	return c.setMore()
}

// bashCalls holds the Bash calls given back by Release, zeroed.
var bashCalls = sync.Pool{New: func() any { return new(bashCall) }}

// Release gives back the memory of c, a call Prepare made, once the caller
// is done with it: neither c nor anything it holds (its Path, its views,
// its Commands, Writes and Modifies) may be used afterwards. Strings taken
// from it stay valid. Releasing a call twice, or one not made by Prepare,
// does nothing.
func Release(c *Call) {
	if c == nil {
		return
	}
	if v := c.BashView; v != nil {
		c.BashView = nil // (a second Release gives nothing back twice)
		Release(v)
	}
	if bc := c.bash; bc != nil {
		bc.reset() // keeps nothing of the call alive (its input, its strings, its parse)
		bashCalls.Put(bc)
		return
	}
	if c.owner == nil {
		return
	}
	fc := c.owner
	*fc = fileCall{} // keeps nothing of the call alive (its input, its strings)
	fileCalls.Put(fc)
}

func prepare(tool string, input map[string]any, env Env, resolve, ref bool, guard *Guarded) *Call {
	// one look-up in the tool table gives the canonical name, its lower
	// case, the tool's facts and what the tool's input holds
	facts := tools.FactsOf(tool, input)
	info := facts.Info
	var c *Call
	var fc *fileCall
	if info != nil && info.PathKey != "" {
		fc = fileCalls.Get().(*fileCall)
		c = &fc.Call
		c.owner = fc
		c.Actions = fc.acts[:0]
	} else if info != nil && info.Name == "Bash" {
		bc := bashCalls.Get().(*bashCall)
		c = &bc.Call
		c.bash = bc
		c.Actions = bc.acts[:0]
	} else {
		c = new(Call)
	}
	c.Input, c.Env = input, env
	c.setTool(facts)
	canon := c.Tool
	c.ref = ref
	switch {
	case canon == "Bash":
		prepareBash(c)
	case canon == "WebFetch":
		prepareURL(c)
	case info != nil && info.Arg == tools.ArgPath:
		p, err := pathInput(input, info.PathKey, true)
		if err != nil {
			c.Err = err
			c.Detail = compactJSON(input)
			break
		}
		// the action string and the absolute path in one allocation
		// when the path is made absolute here and is already clean
		if ref {
			fc.path = resolvePath(p, env, resolve)
			c.Path = &fc.path
			c.Detail = fc.path.Abs
			break
		}
		pre := info.ActionPrefix()
		abs, withPre := joinPath(pre, p, env)
		fc.path = resolveJoined(p, abs, env, resolve)
		c.Path = &fc.path
		c.Detail = fc.path.Abs
		if withPre != "" && fc.path.Abs == withPre[len(pre):] {
			c.action = withPre
		}
	case info != nil && info.Arg == tools.ArgPattern:
		key := "pattern"
		switch canon {
		case "WebSearch":
			key = "query"
		case "Task", "Agent":
			key = "subagent_type"
		}
		s, ok := input[key].(string)
		if !ok {
			c.Err = fmt.Errorf("%s input %q must be a string", canon, key)
		}
		c.Pattern, c.Detail = s, s
		if info.PathKey != "" {
			p, err := pathInput(input, info.PathKey, false)
			if err != nil && c.Err == nil {
				c.Err = err
			}
			if p != "" {
				fc.path = resolvePath(p, env, resolve)
				c.Path = &fc.path
			}
		}
	default:
		c.Detail = compactJSON(input)
	}
	c.action = c.Action()
	c.Actions = append(c.Actions, c.action)
	if c.Path != nil && c.Path.Real != c.Path.Abs {
		c.Actions = append(c.Actions, "tool:"+c.Tool+":"+c.Path.Real)
	}
	if c.Path != nil || len(c.Modifies) > 0 || c.args != nil {
		c.RealCwd, c.RealHome = env.realDirs()
	}
	if c.Path != nil && !ref {
		fc.views.fill(c.Path, c)
		c.Views = &fc.views
		c.FileViews = c.Err == nil && !IsSearch(c.Tool)
		c.Cut.Dirs, c.Cut.N, c.Cut.DirsOK = c.CwdDirs()
	}
	if c.bash != nil && !ref {
		c.Cut.Keys, c.Cut.KeysOK = c.commandKeys(c.bash.keys[:0])
	}
	if c.RunsCommand {
		cmd := c.RunCommand
		if strings.EqualFold(c.Tool, "PowerShell") || strings.EqualFold(c.Tool, "pwsh") {
			cmd = posixSpelling(cmd)
		}
		// (a line is prepared in full whatever resolve says: see PrepareUnresolved)
		c.BashView = prepare("Bash", map[string]any{"command": cmd}, env, true, ref, guard)
	}
	if guard != nil {
		c.Reach.Of = guard
		c.Reach.Path, c.Reach.Hit = c.Reaches(guard)
	}
	return c
}

func pathInput(input map[string]any, key string, required bool) (string, error) {
	v, present := input[key]
	if !present || v == nil {
		if required {
			return "", fmt.Errorf("input %q is missing", key)
		}
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("input %q must be a string", key)
	}
	if s == "" && required {
		return "", fmt.Errorf("input %q is empty", key)
	}
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("input %q holds a NUL byte", key)
	}
	return s, nil
}

// maxCommandBytes and maxCommands bound the work one Bash call costs. A
// longer line, or one of more simple commands (sh -c scripts, substitutions
// and find -exec included), is not parsed further: it gets Err, so no
// pattern allows it and every deny and ask rule for Bash (and every deny
// or ask file rule) fires on it. A bare Bash allow rule still covers it.
const (
	maxCommandBytes = 256 << 10
	maxCommands     = 10000
)

func prepareBash(c *Call) {
	cmd, ok := c.Input["command"].(string)
	if !ok || strings.TrimSpace(cmd) == "" {
		c.Err = fmt.Errorf("Bash input \"command\" must be a non-empty string")
		c.Detail = compactJSON(c.Input)
		return
	}
	c.Command, c.Detail = cmd, cmd
	if len(cmd) > maxCommandBytes {
		c.Err = fmt.Errorf("the command line is %d bytes long, more than the %d that are checked", len(cmd), maxCommandBytes)
		return
	}
	ParseBash(c, cmd)
	c.noteUnseen()
	c.lazyActs = true  // the commands' action strings: only regex rules read them (acts)
	var w *shellWalker // the walker's look-ups of the program table, when it kept them
	if bc := c.bash; bc != nil && bc.walker.c == c {
		w = &bc.walker
	}
	for i := range c.Commands {
		cmd := &c.Commands[i]
		cmd.ro, cmd.roKnown = cmd.readOnlyBy(w), true
		cmd.setLead()
	}
	// deny/ask regexes also see each command behind its wrappers
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if len(cmd.More().Wrappers) > 0 {
			c.wrapped = append(c.wrapped, "tool:Bash:"+strings.Join(cmd.Args, " "))
		}
		if r := cmd.More(); r.expanded != nil {
			c.wrapped = append(c.wrapped, "tool:Bash:"+strings.Join(r.expanded, " "))
			if len(r.expandedArgs) != len(r.expanded) {
				c.wrapped = append(c.wrapped, "tool:Bash:"+strings.Join(r.expandedArgs, " "))
			}
		}
	}
	if bc := c.bash; bc != nil && c.Modifies == nil && len(c.Writes) > 0 && len(c.Writes) <= len(bc.mods) {
		c.Modifies = bc.mods[:0] // the room the call keeps for them
	}
	c.Modifies = append(c.Modifies, c.Writes...)
}

// writesRoom is c.Writes to append a write to: when it has none yet, the
// room a Bash call Prepare made keeps for its first.
func (c *Call) writesRoom() []Path {
	if c.Writes == nil && c.bash != nil {
		return c.bash.writes[:0]
	}
	return c.Writes
}

func prepareURL(c *Call) {
	raw, ok := c.Input["url"].(string)
	if !ok || raw == "" {
		c.Err = fmt.Errorf("WebFetch input \"url\" must be a non-empty string")
		c.Detail = compactJSON(c.Input)
		return
	}
	c.URL, c.Detail = raw, raw
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		c.Err = fmt.Errorf("the URL does not parse: %v", err)
		return
	}
	c.Scheme = strings.ToLower(u.Scheme)
	// Only scheme://host/... names a place a domain rule can speak for:
	// "evil.com/x" parses as a path, "http:/x" and "mailto:x" have no
	// authority, "file:///etc/passwd" and "https:///x" an empty one.
	if c.Scheme == "" {
		c.Err = fmt.Errorf("the URL %q has no scheme: it must be absolute, like https://host/path", raw)
		return
	}
	if u.Opaque != "" || u.Host == "" {
		c.Err = fmt.Errorf("the URL %q has no host: it must be absolute, like https://host/path", raw)
		return
	}
	host, err := urlHost(u)
	if err != nil {
		c.Err = fmt.Errorf("the URL %q %v", raw, err)
		return
	}
	c.Host = host
}

// urlHost returns the canonical host (normHost) of a URL that has one; the
// error completes a sentence that starts with the URL.
func urlHost(u *url.URL) (string, error) {
	h := u.Hostname()
	if h == "" {
		return "", fmt.Errorf("has no host name (only a port)")
	}
	if strings.ContainsAny(h, "\\%") {
		return "", fmt.Errorf("has the host %q, which holds characters no host name has", h)
	}
	if strings.ContainsRune(h, ':') && !strings.HasPrefix(u.Host, "[") {
		return "", fmt.Errorf("has the host %q: an IPv6 address in a URL stands in brackets", h)
	}
	host, err := hostaddr.NormHost(h)
	if err != nil {
		return "", fmt.Errorf("has the host %q, which is not a valid host name or IP address: %v", h, err)
	}
	return host, nil
}

func compactJSON(v map[string]any) string {
	if v == nil {
		return "{}"
	}
	b, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		return "{}"
	}
	return string(b)
}

// setTool fixes the facts of the call's tool (f: tools.FactsOf's answer
// for it and c.Input) once: what the layers above read of it (see Call).
func (c *Call) setTool(f tools.Facts) {
	c.Tool, c.Lower = f.Name, f.Lower
	c.Info, c.Level, c.Key = f.Info, f.Level, f.Key
	c.Edits = f.Info != nil && f.Info.Edit
	c.RunCommand, c.RunsCommand = f.Command, f.RunsCommand
}

// Bare returns a call of tool with no input, its tool's facts fixed as
// Prepare fixes them: a probe of what the mode and the rules say of the
// tool itself (a Call written out by hand has none of its facts). It is
// small enough to be inlined, so a probe that does not outlive its caller
// costs no allocation.
func Bare(tool string, env Env) *Call {
	c := new(Call)
	c.Env = env
	c.findTool(tool)
	return c
}

// findTool is setTool for a tool not looked up yet (a call of its own, so
// that Bare stays small enough to be inlined).
func (c *Call) findTool(tool string) { c.setTool(tools.FactsOf(tool, nil)) }

// lowerTool is the lower-cased tool name (also for a Call not made by Prepare).
func (c *Call) LowerTool() string {
	if c.Lower != "" || c.Tool == "" {
		return c.Lower
	}
	return strings.ToLower(c.Tool)
}

// denyActions are the action strings deny and ask regexes are tried on.
func (c *Call) DenyActions() []string {
	acts := c.Acts()
	if len(acts) == 0 {
		return []string{c.Action()} // a Call not made by Prepare
	}
	if len(c.wrapped) == 0 {
		return acts
	}
	return append(append([]string(nil), acts...), c.wrapped...)
}

// acts returns the regex action strings: for a Bash line one per simple
// command, built on first need (most rule sets hold no regex), then the
// whole line's.
func (c *Call) Acts() []string {
	if !c.lazyActs {
		return c.Actions
	}
	c.actsOnce.Do(func() {
		out := make([]string, 0, len(c.Commands)+len(c.Actions))
		for i := range c.Commands {
			out = append(out, "tool:Bash:"+c.Commands[i].Text)
		}
		c.actsAll = append(out, c.Actions...)
	})
	return c.actsAll
}

// InsideCwd reports whether the call's path (if any) lies inside the working
// directory, both as written and after resolving symlinks. A call without a
// path is inside.
func (c *Call) InsideCwd() bool {
	if c.Path == nil {
		return true
	}
	return Inside(c.Path.Abs, c.Env.Cwd) && Inside(c.Path.Real, c.RealCwd)
}

func Inside(p, dir string) bool {
	if dir == "" {
		return false
	}
	if dir == "/" {
		return true
	}
	return p == dir || len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// rel returns p relative to dir when p lies below dir.
func Rel(p, dir string) (string, bool) {
	if dir == "/" {
		return strings.TrimPrefix(p, "/"), p != "/"
	}
	if len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir) {
		return p[len(dir)+1:], true
	}
	return "", false
}
