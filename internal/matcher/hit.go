package matcher

import (
	"vibing/internal/command"
)

// A Hit is how a rule that matches a call matched it. HowMatched works it
// out once, for a rule that matches: the decision's reason and the choice
// to hold a deny rule back (ask rather than refuse, in session) read it,
// and ask neither the rule nor the call again.
type Hit struct {
	// Unseen is why the rule fires on a Bash line only on what the engine
	// cannot see through (a command name known at run time, a script piped
	// into a shell, a relative name after a cd to a folder known at run
	// time); "" when it fires on what the line spells out.
	Unseen string
	// File says which file of a Bash line a file rule fires on ("it writes
	// src/x", "it names .env"); "" when it fires on no file the line names.
	File string
	// Folder is, in the deny list, the folder a command or a search reads
	// whole that holds a file a Read rule names, when that is the only way
	// the rule fires and the rule does not name every file of the folder.
	Folder string
	// Below is the root of a Grep on which a Read rule fires because of
	// the files below it that the search reads, not the root itself.
	Below string
	// OnHosts says the rule is a host rule (WebFetch(...)) on a Bash line
	// that parses: Hosts are the hosts the line contacts (the call's own
	// list: read only), HostsUnknown why it may contact others known only
	// at run time.
	OnHosts      bool
	Hosts        []string
	HostsUnknown string
	// HostUnseen says a host rule fires on a Bash line only because the
	// line may contact a host known only at run time (none it names
	// matches).
	HostUnseen bool
}

// Indirect reports whether the rule fires only on what the engine cannot
// see through or on a folder read whole: a person can judge what the
// engine cannot.
func (h *Hit) Indirect() bool { return h.Unseen != "" || h.Folder != "" }

// HowMatched says how the rule, which matches c in list (Match), matched
// it. It is asked of a rule once it matches, so that the many rules that do
// not match cost what Match costs; a nil rule (one that could not be
// parsed) has nothing to tell.
func (r *Rule) HowMatched(c *command.Call, list List) *Hit {
	h := new(Hit)
	if r == nil || c == nil || list == AllowList || r.kind == kindTool || r.kind == kindPrefix {
		return h // (a bare tool or a prefix fires on the tool's name, which is seen)
	}
	switch { // (the path rules', then the other rules' on a Bash line)
	case c.Tool == "Bash" && r.kind == kindPath:
		h.Unseen, h.File = r.bashFiles(c, list)
		if list == DenyList && h.Unseen == "" && r.readsWhole() {
			// (a rule that fires only on the unseen reads no folder it sees)
			h.Folder = r.pat.TreeHit(c, true)
		}
	case c.Tool == "Grep" && r.kind == kindPath && r.Tool == "Read" && c.Err == nil:
		root, _ := c.SearchRoot()
		probe := &command.Call{Tool: "Read", Path: &root, Env: c.Env, Detail: root.Abs}
		if !r.Match(probe, DenyList) {
			h.Below = root.Abs
			if list == DenyList && !r.pat.NamesAllBelow(&root, c) {
				h.Folder = root.Abs
			}
		}
	case c.Tool == "Bash":
		h.Unseen = r.unseen(c, list)
		if r.kind == kindDomain {
			n := c.BashHosts()
			h.HostUnseen = n.Unknown != "" && !r.host.MatchesAny(n.Hosts, list == AllowList)
			if c.Err == nil {
				h.OnHosts, h.Hosts, h.HostsUnknown = true, n.Hosts, n.Unknown
			}
		}
	}
	return h
}

// unseen is Hit.Unseen for a rule that is not about paths and matches the
// Bash call c in list: why the line cannot be seen through, unless the rule
// matches what it spells out.
func (r *Rule) unseen(c *command.Call, list List) string {
	if r == nil || c == nil || list == AllowList || c.Tool != "Bash" {
		return ""
	}
	why := c.UnseenCmd
	if why == "" || r.match(c, list, true) {
		return "" // nothing unseen, or the rule matches what the line spells out
	}
	return why
}

// bashFiles is Hit.Unseen and Hit.File for a file rule that matches the
// Bash call c in list (deny or ask), from one look at what the line
// spells out.
func (r *Rule) bashFiles(c *command.Call, list List) (unseen, file string) {
	seen, file := r.bashFileHit(c, list, true, true)
	if seen {
		return "", file
	}
	return c.UnseenFor(r.last), ""
}

// A Read deny rule may fire on a Bash line only because one of its
// commands reads a folder whole (grep -r x ., tar c .) that holds a file
// the rule names. Unlike a file the line names, the person can judge that
// read (the engine asks rather than refuses: session.softens), unless the
// rule names every file of the folder (Read(secrets/**) and grep -r x
// secrets), which reads nothing else (command.PathPattern.TreeHit).

// readsWhole reports whether the rule is one a folder read whole may hit:
// a Read (or NotebookRead) path rule.
func (r *Rule) readsWhole() bool { return r.Tool == "Read" || r.Tool == "NotebookRead" }
