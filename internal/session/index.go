package session

import (
	"sync"

	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// ruleSet is every list of the engine cut down to the rules that may speak
// about one tool, in their original order. Rules for other tools are skipped
// without a look, which keeps a decision cheap against long rule lists.
type ruleSet struct {
	deny, ask, allow    []*rule
	managedAsk          []*rule
	sessDeny, sessAllow []*rule
	narrowAllow         []*rule // allow rules with an argument (specificity)
	ownAllow, ownNarrow []*rule // allow and narrowAllow without the preset's rules

	// the valid allow rules as matcher rules, for Bash coverage
	allowValid, sessAllowValid, narrowValid, ownAllowValid, ownNarrowValid []*matcher.Rule
}

// rulesFor returns the rule set for tool; the caller holds e.mu (read).
// Sets are built on first use and dropped whenever a list changes.
func (e *Engine) rulesFor(tool string) *ruleSet {
	idx := e.index
	if v, ok := idx.Load(tool); ok {
		return v.(*ruleSet)
	}
	keep := func(list []*rule, fire bool) []*rule {
		out := make([]*rule, 0, len(list))
		for _, r := range list {
			if mayApply(r, tool) || (fire && hostRuleOnBash(r, tool)) {
				out = append(out, r)
			}
		}
		return out
	}
	s := &ruleSet{
		deny: keep(e.deny, true), ask: keep(e.ask, true), allow: keep(e.allow, false),
		managedAsk: keep(e.managedAsk, true),
		sessDeny:   keep(e.sessDeny, true), sessAllow: keep(e.sessAllow, false),
	}
	// an ask rule overridden by an allow of the same text never asks: drop
	// it here, once per change, rather than on every call
	asks := s.ask[:0:0]
	for _, r := range s.ask {
		if !e.overridden(r) {
			asks = append(asks, r)
		}
	}
	s.ask = asks
	s.narrowAllow = narrow(s.allow)
	s.allowValid = valid(s.allow)
	s.sessAllowValid = valid(s.sessAllow)
	s.narrowValid = valid(s.narrowAllow)
	s.ownAllow, s.ownNarrow = ownRules(s.allow, LayerChat), ownRules(s.narrowAllow, LayerChat)
	s.ownAllowValid, s.ownNarrowValid = valid(s.ownAllow), valid(s.ownNarrow)
	v, _ := idx.LoadOrStore(tool, s)
	return v.(*ruleSet)
}

// dropIndex forgets the rule sets; the caller holds e.mu (write).
func (e *Engine) dropIndex() { e.index = new(sync.Map) }

func valid(rules []*rule) []*matcher.Rule {
	out := make([]*matcher.Rule, 0, len(rules))
	for _, r := range rules {
		if r.err == nil {
			out = append(out, r.Rule)
		}
	}
	return out
}

// hostRuleOnBash reports whether r is a WebFetch host rule and tool is
// Bash: in the deny and ask lists it fires on the hosts a line contacts
// (curl, wget, ssh, git clone, ...); it never allows a Bash call.
func hostRuleOnBash(r *rule, tool string) bool {
	if tool != "Bash" || r.Rule == nil || !r.Rule.HasArg() {
		return false
	}
	info, known := tools.Lookup(r.Rule.Tool)
	return known && info.Arg == tools.ArgDomain
}

// mayApply reports whether rule r can match a call of tool. It errs on the
// side of keeping a rule: regexes, prefixes, MCP and unknown tool names and
// invalid rules naming no known tool are kept for every tool; a rule for a
// file tool is kept for every file tool, for the searches (Grep, Glob) and
// for Bash (write implies read, a Read deny covers edits, Read rules cover
// searches, file rules check Bash redirections).
func mayApply(r *rule, tool string) bool {
	name := r.tool
	if r.Rule != nil {
		if r.Rule.IsRegex() {
			return true
		}
		name = r.Rule.Tool
	}
	info, known := tools.Lookup(name)
	if !known {
		return true
	}
	if tools.Same(name, tool) {
		return true
	}
	if info.Arg == tools.ArgPath {
		if tool == "Bash" {
			return true
		}
		if t, ok := tools.Lookup(tool); ok && (t.Arg == tools.ArgPath || t.PathKey != "") {
			return true // Read rules speak for the path of Grep and Glob too
		}
	}
	return false
}
