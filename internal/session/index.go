package session

import (
	"math"
	"slices"
	"strings"

	"vibing/internal/command"
	"vibing/internal/cowmap"
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
	allowValid, sessAllowValid, ownAllowValid, ownNarrowValid []*matcher.Rule
	// allowEnds[i] is allow[i]'s end test: the allow loop of a file call
	// reads these words side by side, not the rules
	allowEnds []matcher.EndTest
	// askGates[i] and denyGates[i] are ask[i]'s and deny[i]'s name tests
	// and, in a set cut by a line's command names, word tests (ruleGate),
	// for the loops of steps 2 and 5 likewise
	askGates, denyGates []ruleGate

	// allowValid kept by first word (a set cut for a Bash line: cutBy), or nil
	allowIdx *matcher.AllowIndex

	cuts cowmap.Map[*ruleSet] // a path's folders (folderKey) or a line's command names (appendCmdSetKey) -> the set cut down to them
}

// rulesFor returns the rule set for c's tool, which it reads the tool's
// facts of (command.Bare's call of a tool will do); the caller holds e.mu
// (read). Sets are built on first use and dropped whenever a list changes.
func (e *Engine) rulesFor(c *command.Call) *ruleSet {
	idx := e.index
	tool := c.Tool
	if s, ok := idx.Load(tool); ok {
		return s
	}
	keep := func(list []*rule, fire bool) []*rule {
		out := make([]*rule, 0, len(list))
		for _, r := range list {
			// (in the deny and ask lists a WebFetch host rule also fires on
			// the hosts a Bash line contacts: curl, wget, ssh, git clone ...)
			if mayApply(r, c) || (fire && tool == "Bash" && r.Rule.OnHosts()) {
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
	s.derive()
	s, _ = idx.LoadOrStore(tool, s, math.MaxInt)
	return s
}

// derive fills in the lists that follow from deny, ask, allow, sessDeny
// and sessAllow.
func (s *ruleSet) derive() {
	s.narrowAllow = narrow(s.allow)
	s.allowEnds = endTests(s.allow)
	s.askGates, s.denyGates = gatesOf(s.ask), gatesOf(s.deny)
	s.allowValid = valid(s.allow)
	s.sessAllowValid = valid(s.sessAllow)
	s.ownAllow, s.ownNarrow = ownRules(s.allow, LayerChat), ownRules(s.narrowAllow, LayerChat)
	s.ownAllowValid, s.ownNarrowValid = valid(s.ownAllow), valid(s.ownNarrow)
}

// cutPerCall turns forCall on (the tests compare decisions without it).
var cutPerCall = true

// maxCutSets bounds the cut-down rule sets kept per tool (forCall);
// past it a call's set is cut down for that call alone.
const maxCutSets = 256

// forCall cuts the set down to the rules that may match c: for one path of
// a file tool, a path rule anchored in another folder of the working
// directory cannot (Edit(src/gen/**) says nothing of src/pkg/x.go), nor a
// rule that speaks of other tools in its list (an allowed Read is no
// allowed Edit); every other rule stays, in its order, so the rule that
// decides is the same. The cut depends only on the rules, the tool and the
// path's folders, and is kept per folders (the set is the tool's).
func (s *ruleSet) forCall(c *command.Call) *ruleSet {
	if !cutPerCall {
		return s
	}
	if c.Tool == "Bash" {
		return s.forCommands(c)
	}
	dirs, n := c.Cut.Dirs, c.Cut.N
	if !c.Cut.DirsOK {
		return s
	}
	return s.cutBy(folderKey(dirs[:n]), false, func(r *rule, list matcher.List) bool {
		if r.Rule == nil {
			return true // invalid: fails closed in deny and ask
		}
		if !r.appliesTo(c, list) {
			return false
		}
		d := r.Rule.CwdDir()
		if d == "" {
			return true
		}
		for _, dir := range dirs[:n] {
			if strings.HasPrefix(dir, d) {
				return true
			}
		}
		return false
	})
}

// cutBy is the set cut down to the rules keep keeps, every list alike (a
// list left out would lose its rules: the managed asks once were), kept
// under key until the rules change, for up to maxCutSets keys. byWords
// (a set for a Bash line) gives its deny and ask rules their word tests
// (ruleGate) and its allow rules their index by first word (allowIdx):
// only such a set has them, so the slow twin, which keeps every rule,
// never passes a rule over by its words.
func (s *ruleSet) cutBy(key string, byWords bool, keep func(r *rule, list matcher.List) bool) *ruleSet {
	if t, ok := s.cuts.Load(key); ok {
		return t
	}
	cut := func(rules []*rule, list matcher.List) []*rule {
		out := make([]*rule, 0, len(rules))
		for _, r := range rules {
			if keep(r, list) {
				out = append(out, r)
			}
		}
		return out
	}
	deny, ask, allow := matcher.DenyList, matcher.AskList, matcher.AllowList
	t := &ruleSet{deny: cut(s.deny, deny), ask: cut(s.ask, ask), allow: cut(s.allow, allow),
		managedAsk: cut(s.managedAsk, ask), sessDeny: cut(s.sessDeny, deny), sessAllow: cut(s.sessAllow, allow)}
	t.derive()
	if byWords {
		wordTests(t.askGates, t.ask)
		wordTests(t.denyGates, t.deny)
		t.allowIdx = matcher.NewAllowIndex(t.allowValid)
	}
	t, _ = s.cuts.LoadOrStore(key, t, maxCutSets)
	return t
}

// forCommands cuts a Bash rule set down to the rules that may match the
// line c: a command rule whose command name no command of the line has
// (Bash(git push:*) says nothing of npm test) cannot; every other rule
// (file, host, regex, bare and invalid rules, wildcards that do not fix a
// name) stays, in its order. The cut depends only on the rules and the
// line's command names, and is kept per set of names like forCall's.
func (s *ruleSet) forCommands(c *command.Call) *ruleSet {
	keys := c.Cut.Keys
	if !c.Cut.KeysOK {
		return s
	}
	var kb [128]byte
	key := appendCmdSetKey(kb[:0], keys)
	if t, ok := s.cuts.LoadBytes(key); ok {
		return t // (the key spelled on the stack: no string made for a set seen before)
	}
	return s.cutBy(string(key), true, func(r *rule, _ matcher.List) bool {
		k, ok := r.Rule.CommandKey() // nil (invalid): kept, fails closed
		return !ok || slices.Contains(keys, k)
	})
}

// appendCmdSetKey appends the map key of a set of command keys to b:
// sorted, each after a "\x01" (which no folder key starts with), so the
// sets of names and of folders share one map.
func appendCmdSetKey(b []byte, keys []string) []byte {
	slices.Sort(keys)
	for _, k := range keys {
		b = append(b, 1)
		b = append(b, k...)
	}
	return b
}

// folderKey joins folders into one map key (NUL stands in no path).
func folderKey(dirs []string) string {
	switch len(dirs) {
	case 0:
		return "\x00"
	case 1:
		return dirs[0]
	}
	return strings.Join(dirs, "\x00")
}

// dropIndex forgets the rule sets; the caller holds e.mu (write).
func (e *Engine) dropIndex() { e.index = new(cowmap.Map[*ruleSet]) }

// endTests are the rules' end tests, side by side (see derive).
func endTests(rules []*rule) []matcher.EndTest {
	out := make([]matcher.EndTest, len(rules))
	for i, r := range rules {
		out[i] = r.Rule.EndTest() // (nil for an invalid rule: a test that passes nothing over)
	}
	return out
}

// gatesOf are the rules' gates with their name tests, side by side (see
// derive); cutBy adds the word tests.
func gatesOf(rules []*rule) []ruleGate {
	out := make([]ruleGate, len(rules))
	for i, r := range rules {
		out[i].name = r.Rule.NameTest() // (nil for an invalid rule: a test that passes nothing over)
	}
	return out
}

// coversBy is matcher.Covers of valid, through idx when there is one.
func coversBy(valid []*matcher.Rule, idx *matcher.AllowIndex, c *command.Call) (bool, *matcher.Rule) {
	if idx != nil {
		return matcher.CoversBy(idx, c)
	}
	return matcher.Covers(valid, c)
}

// wordTests fills in gates[i]'s word test, rules[i]'s (see cutBy).
func wordTests(gates []ruleGate, rules []*rule) {
	for i, r := range rules {
		gates[i].word = r.Rule.WordTest() // (nil for an invalid rule: a test that passes nothing over)
	}
}

// ruleGate is a deny or ask rule's tests, read side by side without the
// rule: its name test (a path rule that cannot name the call's file), and
// in a set cut for a Bash line its word test (a command rule naming a word
// past its command that no word of the line is: Bash(git push:*) on git
// status). Either passes the rule over; the rule would not have matched.
type ruleGate struct {
	name matcher.NameTest
	word matcher.WordTest
}

// rejects reports that g's rule matches v in neither the deny nor the ask
// list (lw: v's words, made on first use); false says nothing.
func (g *ruleGate) rejects(v *command.Call, lw *matcher.LineWords) bool {
	return g.name.Rejects(v) || g.word.Rejects(v, lw)
}

func valid(rules []*rule) []*matcher.Rule {
	out := make([]*matcher.Rule, 0, len(rules))
	for _, r := range rules {
		if r.err == nil {
			out = append(out, r.Rule)
		}
	}
	return out
}

// mayApply reports whether rule r can match a call of c's tool. It errs on
// the side of keeping a rule: regexes, prefixes, MCP and unknown tool names
// and invalid rules naming no known tool are kept for every tool; a rule
// for a file tool is kept for every file tool, for the searches (Grep,
// Glob) and for Bash (write implies read, a Read deny covers edits, Read
// rules cover searches, file rules check Bash redirections). The rule's
// tool and the call's are compared by the keys worked out when the rule
// was read and when the call was prepared (tools.Same's).
func mayApply(r *rule, c *command.Call) bool {
	if r.Rule != nil && r.Rule.IsRegex() {
		return true
	}
	info := r.toolInfo()
	if info == nil {
		return true
	}
	if r.toolKey() == c.Key {
		return true
	}
	if info.Arg == tools.ArgPath {
		if c.Tool == "Bash" {
			return true
		}
		if t := c.Info; t != nil && (t.Arg == tools.ArgPath || t.PathKey != "") {
			return true // Read rules speak for the path of Grep and Glob too
		}
	}
	return false
}

// appliesTo is matcher.Rule.AppliesTo for a valid rule of the set for c's
// tool (mayApply), from the facts fixed when the rule was read and when the
// call was prepared, without a call of the rule: the rule may match c in
// list unless it is a rule of another file tool that does not speak for
// c's tool there (matcher.Rule.Speaks: an allowed Read is no allowed Edit,
// a denied Read is a denied Edit too). TestAppliesToTwin holds it to
// AppliesTo.
func (r *rule) appliesTo(c *command.Call, list matcher.List) bool {
	switch {
	case c.Tool == "Bash" || r.toolKey() == c.Key:
		return true // (a Bash line's files; the tool itself)
	case r.toolInfo() == nil:
		return r.toolKey() == "" // a regex or a prefix: every tool; an MCP tool's rule: that tool
	}
	return c.Info != nil && r.Rule.Speaks(list)&c.Info.Family != 0
}

// prepareFor prepares a call for a decision. A read-only tool's path is
// left unresolved (its symlinks not followed) only when nothing the
// decision looks at can depend on where it lands: in bypassPermissions
// mode, where reads are allowed inside and outside the working directory
// alike, with no rule of any list that reads paths for that tool (a path or
// regex rule, or one that could not be parsed). The guard and the autorun
// step look at writes only. In every other case the path is resolved.
func (e *Engine) prepareFor(tool string, input map[string]any, env command.Env) *command.Call {
	tool = strings.TrimSpace(tool)
	return command.PrepareHow(tool, input, env, command.How{Reference: e.ref, Unresolved: e.pathsIrrelevant(tool, env), Guard: e.guards()})
}

func (e *Engine) pathsIrrelevant(tool string, env command.Env) bool {
	if e.ref || e.broken != nil || e.mode != "bypassPermissions" {
		return false
	}
	t := command.Bare(tool, env) // the tool's facts, before its input is read
	if t.Info == nil || t.Tool == "Bash" || t.Edits || t.Level != tools.ReadOnly {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	rs := e.rulesFor(t)
	for _, list := range [][]*rule{rs.deny, rs.ask, rs.allow, rs.sessDeny, rs.sessAllow} {
		for _, r := range list {
			if r.Rule == nil || r.Rule.OnFiles() || r.Rule.IsRegex() {
				return false
			}
		}
	}
	return true
}
