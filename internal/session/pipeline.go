package session

import (
	"fmt"
	"strings"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/defaults"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// DecideCall runs the pipeline for a prepared call.
func (e *Engine) DecideCall(c *command.Call) Decision {
	if c.Tool == "WebFetch" && c.Err == nil && c.Host == "" {
		// "evil.com/x" parses as a path: no host means no domain rule can
		// speak for it, so it fails closed like any unreadable input.
		c.Err = fmt.Errorf("WebFetch url %q has no host", c.URL)
	}
	d := e.decide(c)
	d.Level = string(c.Level)
	d.Action = c.Action()
	if d.Decision == Ask {
		e.limitAnswers(&d)
	}
	return d
}

// limitAnswers turns off the answers a managed switch forbids on an ask.
func (e *Engine) limitAnswers(d *Decision) {
	if !e.sw.DisableAlways && !e.sw.DisableSessionGrants && !e.sw.ManagedRulesOnly {
		return // (no managed switch: the common case, in a few instructions)
	}
	var why []string
	if e.sw.DisableAlways || e.sw.ManagedRulesOnly {
		d.NoAlways = true
		why = append(why, "always answers")
	}
	if e.sw.DisableSessionGrants || e.sw.ManagedRulesOnly {
		d.NoSession = true
		why = append(why, "for-session answers")
	}
	if d.Limit == "" && len(why) > 0 {
		d.Limit = "managed policy turns off " + strings.Join(why, " and ")
	}
}

func (e *Engine) decide(c *command.Call) Decision {
	if e.broken != nil {
		return Decision{Decision: Deny, Source: SourceConfig, Reason: capitalize(e.broken.Error()) + "."}
	}
	// A tool other than Bash that runs a command (Monitor, an MCP or unknown
	// tool with a "command") is also matched as Bash on that command: its
	// Bash view bc meets the guard, the deny and ask rules for Bash and the
	// default deny rules.
	bc := c.BashView

	// 1. guard: Prepare asked the analysis once which guarded path the
	// call, and its Bash view, may modify (command.Call.Reach)
	if g := e.guards(); c.Reach.Of != g || bc != nil && bc.Reach.Of != g {
		return Decision{Decision: Deny, Source: SourceGuard, Reason: notGuarded}
	}
	if c.Reach.Hit {
		return guardDenial(c, c.Reach.Path)
	}
	if bc != nil && bc.Reach.Hit {
		return guardDenial(c, bc.Reach.Path)
	}

	e.mu.RLock()
	defer e.mu.RUnlock()
	rs := e.rulesFor(c)
	if !e.ref {
		rs = rs.forCall(c) // (the slow twin keeps every rule)
	}
	var bs *ruleSet
	if bc != nil {
		bs = e.rulesFor(bc)
	}
	d := e.byRules(c, rs, bc, bs)
	if d.Decision == Deny {
		return d
	}
	// a tool the engine does not know that carries a path (pathviews.go)
	if views := e.pathViews(c); len(views) > 0 {
		e.mu.RUnlock()
		pd, pa, isDeny, isAsk := e.pathViewsDecide(c, views)
		e.mu.RLock()
		if isDeny {
			return pd
		}
		if isAsk && d.Decision == Allow {
			return pa
		}
	}
	if d.Decision != Allow {
		return d // (without the copies of a call of autorun, which passes it on)
	}
	// Files that run code by themselves: an allow (by any rule, grant or
	// mode) becomes an ask unless an allow rule names the file.
	return e.autorun(c, bc, d)
}

// byRules is steps 2 to 8 for c and, for a tool that runs a command, its Bash
// view bc (rule set bs).
func (e *Engine) byRules(c *command.Call, rs *ruleSet, bc *command.Call, bs *ruleSet) Decision {
	// 2. deny list and the default deny rules; a rule that fires only on
	// what the engine cannot see through (or on a folder read whole that
	// holds what it names) is held back: it asks below, unless another
	// rule refuses the call
	soft, softHit := denyRule(c, rs.deny, rs.denyGates, e.kernel)
	softV := c
	if soft != nil && !e.softens(c, soft, softHit) {
		return e.denial(c, c, soft, softHit)
	}
	if bc != nil {
		if r, h := denyRule(bc, bs.deny, bs.denyGates, e.kernel); r != nil {
			if !e.softens(bc, r, h) {
				return e.denial(c, bc, r, h)
			}
			if soft == nil {
				soft, softHit, softV = r, h, bc
			}
		}
	}
	if e.cfg.DefaultDeny() {
		if name, ok := defaults.Deny(c); ok {
			return defaultDenial(c, name)
		}
		if bc != nil {
			if name, ok := defaults.Deny(bc); ok {
				return defaultDenial(c, name)
			}
		}
	}
	if c.Err != nil && c.Tool == "Bash" && strings.TrimSpace(c.Command) == "" {
		return Decision{Decision: Deny, Source: SourceConfig, Reason: fmt.Sprintf("The Bash call has no command to check (%v), so it is denied.", c.Err)}
	}

	if soft != nil {
		// a session deny that fires still refuses; else a person judges
		if r := firstMatch(c, rs.sessDeny, matcher.DenyList); r != nil {
			return sessionDenial(c, r)
		}
		if bc != nil {
			if r := firstMatch(bc, bs.sessDeny, matcher.DenyList); r != nil {
				return sessionDenial(c, r)
			}
		}
		return e.unseenDenyAsk(c, softV, soft, softHit)
	}

	// 2b. managed ask: nothing below weakens it (no allow, grant or mode)
	if r, h := firstHit(c, rs.managedAsk, matcher.AskList); r != nil {
		return e.managedAskBy(c, r, h)
	}
	if bc != nil {
		if r, h := firstHit(bc, bs.managedAsk, matcher.AskList); r != nil {
			return e.managedAskBy(c, r, h)
		}
	}

	// 3. session deny
	if r := firstMatch(c, rs.sessDeny, matcher.DenyList); r != nil {
		return sessionDenial(c, r)
	}
	if bc != nil {
		if r := firstMatch(bc, bs.sessDeny, matcher.DenyList); r != nil {
			return sessionDenial(c, r)
		}
	}
	// 4. session allow (a "once" policy grant stands in for step 7 only)
	if r, ok := e.allowed(rs.sessAllow, rs.sessAllowValid, c); ok {
		return Decision{Decision: Allow, Rule: r, Source: SourceSession,
			Reason: say(c, " is allowed for this session (", r, ").")}
	}
	if bc != nil {
		if r, ok := e.allowed(bs.sessAllow, bs.sessAllowValid, bc); ok {
			return Decision{Decision: Allow, Rule: r, Source: SourceSession,
				Reason: say(c, " is allowed for this session (", r, ").")}
		}
	}
	// 5. ask list (an allow by a narrower rule still meets the command's asks)
	var dc Decision
	okc := false
	if r, h, bare := askRule(c, rs); r != nil || bare != nil {
		dc, okc = e.askFrom(c, c, rs, nil, r, h, bare)
	}
	if okc && (dc.Decision != Allow || bc == nil) {
		return dc
	}
	if bc != nil {
		if d, ok := e.askStep(c, bc, bs, rs); ok {
			return d
		}
	}
	if okc {
		return dc
	}
	// 6. allow list
	if r, ok := e.allowedBy(rs.allow, rs.allowEnds, rs.allowValid, rs.allowIdx, c); ok {
		return Decision{Decision: Allow, Rule: r, Source: e.sourceOfAllow(r),
			Reason: say(c, " is allowed by the rule ", r, ".")}
	}
	if bc != nil {
		if r, ok := e.allowed(bs.allow, bs.allowValid, bc); ok {
			return Decision{Decision: Allow, Rule: r, Source: e.sourceOfAllow(r),
				Reason: say(c, " is allowed by the rule ", r, ", which covers its command.")}
		}
	}
	// 6b. a line of allowed commands and reads (npm test | tail -20)
	if d, ok := e.allowedWithReads(c, rs); ok {
		return d
	}
	// 7. mode and policies
	d := e.byMode(c)
	if d.Decision == Ask && len(e.untrusted) > 0 {
		e.noteUntrusted(c, bc, &d)
	}
	if d.Decision != Ask || e.canPrompt() {
		return d // (without the copies of a call of finishAsk, which passes it on)
	}
	return e.finishAsk(c, d)
}

// firstMatch is the first of the rules that matches v in list, or nil.
func firstMatch(v *command.Call, rules []*rule, list matcher.List) *rule {
	for _, r := range rules {
		if r.matches(v, list) {
			return r
		}
	}
	return nil
}

// firstHit is firstMatch with how the rule matched, for a reason that says it.
func firstHit(v *command.Call, rules []*rule, list matcher.List) (*rule, *matcher.Hit) {
	if r := firstMatch(v, rules, list); r != nil {
		return r, r.Rule.HowMatched(v, list)
	}
	return nil, nil
}

// defaultDenial is the deny of c by the default rule against name.
func defaultDenial(c *command.Call, name string) Decision {
	return Decision{Decision: Deny, Rule: "default: " + name, Source: SourceDenyList,
		Reason: fmt.Sprintf("%s is refused by the built-in rule against %s.", describe(c), name)}
}

// managedAskBy is the ask of the managed ask rule r on a view of c (step
// 2b; h: how r matched it), which can be approved only once.
func (e *Engine) managedAskBy(c *command.Call, r *rule, h *matcher.Hit) Decision {
	d := e.askBy(c, r, h)
	if d.Decision == Ask {
		d.NoAlways, d.NoSession = true, true
		d.Limit = fmt.Sprintf("the ask rule %s is managed policy (%s): it can be approved once, never always or for the session", r.String(), r.source)
	}
	return d
}

// sessionDenial is the deny of c by the session rule r (step 3).
func sessionDenial(c *command.Call, r *rule) Decision {
	return Decision{Decision: Deny, Rule: r.String(), Source: SourceSession,
		Reason: fmt.Sprintf("%s is denied for this session (%s).", describe(c), r.String())}
}

// askStep is step 5 for one view v of call c. An ask rule is overridden by
// an allow rule of the same text from the same hands: the person's own
// allow rule overrides the person's and the preset's ask rules, a preset's
// allow only the preset's ("Allow list overrides ask list"). A bare
// "ask: Tool" yields to an allow rule that names this very call more
// narrowly (an "always allow" answer to such an ask must stop the next
// prompt) - but only when no narrower ask rule fires too, and a preset's
// allow never outranks the person's own ask. For a command's Bash view,
// own (the tool's rule set) holds allow rules that name the tool itself:
// they too are narrower than a bare "ask: Bash".
func (e *Engine) askStep(c, v *command.Call, rs, own *ruleSet) (Decision, bool) {
	r, h, bare := askRule(v, rs)
	return e.askFrom(c, v, rs, own, r, h, bare)
}

// askRule is the loop of step 5 over rs's ask rules for view v: the first
// rule with an argument (or regex) that matches, with how it matched, else
// the first bare one ("ask: Tool") that does, or neither.
func askRule(v *command.Call, rs *ruleSet) (r *rule, h *matcher.Hit, bareAsk *rule) {
	gates, lw := rs.askGates, matcher.LineWords{} // (lw: v's words, for the word tests)
	if len(gates) != len(rs.ask) {
		gates = nil
	}
	for i, a := range rs.ask {
		if gates != nil && gates[i].rejects(v, &lw) {
			continue // (the rule itself is not read)
		}
		if !a.matches(v, matcher.AskList) { // overridden rules are not in the set (rulesFor)
			continue
		}
		if a.err == nil && !a.Rule.HasArg() && !a.Rule.IsRegex() {
			if bareAsk == nil {
				bareAsk = a
			}
			continue
		}
		return a, a.Rule.HowMatched(v, matcher.AskList), bareAsk
	}
	return nil, nil, bareAsk
}

// askFrom is askStep once askRule found r (h: how it matched) or bareAsk.
func (e *Engine) askFrom(c, v *command.Call, rs, own *ruleSet, r *rule, h *matcher.Hit, bareAsk *rule) (Decision, bool) {
	if r != nil {
		return e.askBy(c, r, h), true
	}
	if bareAsk == nil {
		return Decision{}, false
	}
	// the person's own ask yields only to the person's own allow rules, a
	// layer's ask only to allow rules of its own file
	var narrow []*rule
	var nv []*matcher.Rule
	switch bareAsk.origin {
	case SourcePreset:
		narrow, nv = rs.presetNarrow()
	case LayerChat:
		narrow, nv = rs.ownNarrow, rs.ownNarrowValid
	default:
		narrow = fromOrigin(rs.narrowAllow, bareAsk.origin)
		nv = valid(narrow)
	}
	if by, ok := e.allowed(narrow, nv, v); ok {
		return Decision{Decision: Allow, Rule: by, Source: e.sourceOfAllow(by),
			Reason: say(c, " is allowed by the rule ", by, ", which is narrower than the ask rule ", bareAsk.String(), ".")}, true
	}
	if own != nil {
		var allow []*rule
		var av []*matcher.Rule
		switch bareAsk.origin {
		case SourcePreset:
			allow = fromOrigin(own.allow, SourcePreset, LayerChat)
			av = valid(allow)
		case LayerChat:
			allow, av = own.ownAllow, own.ownAllowValid
		default:
			allow = fromOrigin(own.allow, bareAsk.origin)
			av = valid(allow)
		}
		if by, ok := e.allowed(allow, av, c); ok {
			return Decision{Decision: Allow, Rule: by, Source: e.sourceOfAllow(by),
				Reason: fmt.Sprintf("%s is allowed by the rule %s, which names the tool and is narrower than the ask rule %s.", describe(c), by, bareAsk.String())}, true
		}
	}
	return e.askBy(c, bareAsk, &matcher.Hit{}), true // (a bare rule fires on the tool's name: nothing more to tell)
}

// overridden reports whether an ask rule yields to an allow rule of the
// same text (see askStep).
func (e *Engine) overridden(r *rule) bool {
	if r.err != nil {
		return false
	}
	t := r.Rule.Text
	switch r.origin {
	case LayerChat:
		return e.ownAllow[t]
	case SourcePreset:
		return e.ownAllow[t] || e.presetAllow[t]
	}
	return e.layerAllow[r.origin+"\x00"+t]
}

// askOverridden reports whether the ask rule of that text is overridden.
func (e *Engine) askOverridden(text string) bool {
	for _, r := range e.ask {
		if r.String() == text {
			return e.overridden(r)
		}
	}
	return false
}

// ownRules keeps the rules of one origin (LayerChat: the person's own).
func ownRules(rules []*rule, origin string) []*rule { return fromOrigin(rules, origin) }

// fromOrigin keeps the rules written in one of the origins.
func fromOrigin(rules []*rule, origins ...string) []*rule {
	out := make([]*rule, 0, len(rules))
	for _, r := range rules {
		for _, o := range origins {
			if r.origin == o {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// presetNarrow is the narrow allow rules a preset's bare ask yields to: the
// preset's own and the person's.
func (s *ruleSet) presetNarrow() ([]*rule, []*matcher.Rule) {
	n := fromOrigin(s.narrowAllow, SourcePreset, LayerChat)
	return n, valid(n)
}

// decisionSource is the source a decision by r names: for the chat's own
// lists the list (def), else the preset, the session or "<layer>:<file>".
func (r *rule) decisionSource(def string) string {
	if r.origin == LayerChat {
		return def
	}
	return r.source
}

// askBy is the ask of ask-list rule r on a view of c (step 5; h: how r
// matched it), through step 8.
func (e *Engine) askBy(c *command.Call, r *rule, h *matcher.Hit) Decision {
	src := r.decisionSource(SourceAskList)
	var reason string
	switch {
	case h.Unseen != "":
		reason = fmt.Sprintf("%s needs approval (ask: %s): %s, because %s.", describe(c), r.String(), unseenWhat(r), h.Unseen)
	case h.File != "":
		reason = fmt.Sprintf("%s needs approval (ask: %s), as %s.", describe(c), r.String(), h.File)
	default:
		reason = say(c, " needs approval (ask: ", r.String(), searchNote(h), hostClause(h), ").")
	}
	return e.finishAsk(c, Decision{Decision: Ask, Rule: r.String(), Source: src, Reason: reason})
}

// allowed reports whether the allow rules cover c, and the deciding rule.
func (e *Engine) allowed(rules []*rule, valid []*matcher.Rule, c *command.Call) (string, bool) {
	return e.allowedBy(rules, nil, valid, nil, c)
}

// allowedBy is allowed with the rules' end words side by side (ends[i] is
// rules[i].EndTest(), or nil): a rule whose end the path's lacks is passed
// over without a look at the rule; idx (or nil): valid by first word.
func (e *Engine) allowedBy(rules []*rule, ends []matcher.EndTest, valid []*matcher.Rule, idx *matcher.AllowIndex, c *command.Call) (string, bool) {
	if len(rules) == 0 {
		return "", false
	}
	if c.Tool == "Bash" {
		if ok, by := coversBy(valid, idx, c); ok {
			if by == nil {
				return "", true
			}
			return by.Text, true
		}
		return "", false
	}
	w, words := c.EndWord()
	if words && len(ends) == len(rules) {
		for i := range ends {
			if ends[i].Rejects(w) {
				continue // (inlined: most file rules end otherwise than the path)
			}
			if r := rules[i]; r.matches(c, matcher.AllowList) {
				return r.String(), true
			}
		}
		return "", false
	}
	for _, r := range rules { // (matches passes over what the end tests would, by Skips)
		if r.matches(c, matcher.AllowList) {
			return r.String(), true
		}
	}
	return "", false
}

// narrow keeps the rules that have an argument (not a bare tool or regex).
func narrow(rules []*rule) []*rule {
	var out []*rule
	for _, r := range rules {
		if r.err == nil && r.Rule.HasArg() && !r.Rule.IsRegex() {
			out = append(out, r)
		}
	}
	return out
}

func (e *Engine) sourceOfAllow(text string) string {
	if src, ok := e.allowSrc[text]; ok {
		return src // the first allow rule of that text (noteAllowSource)
	}
	return SourceAllowList
}

// allowedWithReads allows a Bash line whose every command a session grant
// or an allow rule covers or is a read the mode allows (matcher.CoversWithReads),
// naming the grant or rule. The reads are the mode's: not in
// bypassPermissions (which allows all), not under an "always" policy for
// Bash (which asks before every read).
func (e *Engine) allowedWithReads(c *command.Call, rs *ruleSet) (Decision, bool) {
	if c.Tool != "Bash" || !e.readsBeside() || (len(rs.sessAllowValid) == 0 && len(rs.allowValid) == 0) {
		return Decision{}, false
	}
	repo := e.repoReadable(c)
	if r, ok := matcher.CoversWithReads(rs.sessAllowValid, c, repo); ok {
		return Decision{Decision: Allow, Rule: r.Text, Source: SourceSession,
			Reason: say(c, " is allowed for this session (", r.Text, "); the rest of it only reads inside the working directory.")}, true
	}
	if r, ok := matcher.CoversWithReads(rs.allowValid, c, repo); ok {
		return Decision{Decision: Allow, Rule: r.Text, Source: e.sourceOfAllow(r.Text),
			Reason: say(c, " is allowed by the rule ", r.Text, "; the rest of it only reads inside the working directory.")}, true
	}
	return Decision{}, false
}

// readsBeside reports whether reads the mode allows pass beside the
// allowed commands of a Bash line: not in bypassPermissions (which allows
// all), not under an "always" policy for Bash (which asks before a read).
func (e *Engine) readsBeside() bool {
	if e.mode == "bypassPermissions" {
		return false
	}
	p, ok := e.policyOf(bashKey)
	return !ok || p != config.PolicyAlways || (e.mode != "default" && e.mode != "acceptEdits")
}

// suggest is the rule set for an always or session answer to c, or for the
// guidance of a refused ask: without rules for the reads the mode lets
// pass beside them.
func (e *Engine) suggest(c *command.Call) string {
	if e.readsBeside() {
		return matcher.JoinRules(matcher.SuggestBesideReads(c, e.repoReadable(c)))
	}
	return matcher.Suggest(c)
}

// byMode is step 7: what happens to a call that no rule names.
func (e *Engine) byMode(c *command.Call) Decision {
	readOnly := c.Level == tools.ReadOnly
	inside := c.InsideCwd() && c.SearchInsideCwd()
	d := Decision{Source: SourceMode}

	if c.Tool == "Bash" && e.mode != "bypassPermissions" && c.ReadsOnlyInside(e.repoReadable(c)) {
		// a line that only reads inside the working folder is, for the
		// mode, a Read of what it names (the Read rules have spoken)
		d.Decision, d.Reason = Allow, say(c, " only reads inside the working directory, allowed in ", e.mode, " mode.")
		if e.mode == "default" || e.mode == "acceptEdits" {
			e.policy(c, &d)
		}
		return d
	}
	if c.Tool == "Bash" && e.mode != "bypassPermissions" && c.ReadsOnlyInside(func() bool { return true }) {
		// a read but for git printing what the repository holds, which a
		// Read rule may name: ask, saying so (and refuse where no prompt can be shown)
		d.Decision = Ask
		d.Reason = say(c, " prints what the git repository holds, earlier versions included, where no path names a file, and ", e.repoWhy(c), ", so it needs approval.")
		if e.mode == "plan" || e.mode == "dontAsk" {
			d.Decision, d.Reason = Deny, say(c, " prints what the git repository holds, earlier versions included, and ", e.repoWhy(c), "; ", e.mode, " mode allows only reads.")
			if e.mode == "dontAsk" {
				d.Reason += fmt.Sprintf(" Add it to the allow list with /allow %s.", e.suggest(c))
			}
		}
		e.policy(c, &d)
		return d
	}
	if readOnly && c.Err == nil && e.mode != "bypassPermissions" {
		if inside {
			d.Decision, d.Reason = Allow, c.Tool+" is a read-only tool, allowed in "+e.mode+" mode."
		} else {
			d.Decision, d.Reason = Ask, say(c, " reads outside the working directory, so it needs approval.")
		}
		if d.Decision == Allow && (e.mode == "default" || e.mode == "acceptEdits") {
			e.policy(c, &d)
			return d
		}
		return d
	}
	switch e.mode {
	case "bypassPermissions":
		d.Decision, d.Reason = Allow, say(c, " is allowed because the chat is in bypassPermissions mode.")
		return d
	case "plan":
		d.Decision, d.Reason = Deny, say(c, " is denied: plan mode is read-only.")
		return d
	case "dontAsk":
		d.Decision, d.Reason = Deny, fmt.Sprintf("%s is denied: dontAsk mode allows only read-only tools and listed rules. Add it to the allow list with /allow %s.", describe(c), e.suggest(c))
		return d
	case "acceptEdits":
		if c.Edits && c.Err == nil && inside {
			d.Decision, d.Reason = Allow, say(c, " edits a file inside the working directory, allowed in acceptEdits mode.")
			e.policy(c, &d)
			return d
		}
	}
	d.Decision = Ask
	if c.Edits && !inside {
		d.Reason = say(c, " edits a file outside the working directory, so it needs approval.")
	} else {
		d.Reason = say(c, " needs approval (", string(c.Level), " tool, ", e.mode, " mode).")
	}
	e.policy(c, &d)
	return d
}

// policy applies the tool's approval policy (trust, once, always) to a mode
// decision of default or acceptEdits mode. Only an "always" policy on a tool
// the mode allowed, and "trust"/"once" on a tool the mode asked about, change
// the outcome; outside the working directory nothing is trusted.
func (e *Engine) policy(c *command.Call, d *Decision) {
	if d.Decision == Ask && len(e.onceGranted) > 0 && e.onceGranted[c.Tool] && c.Err == nil {
		// a "once" grant stands in for this step only: ask rules came first
		d.Decision, d.Source = Allow, SourceSession
		d.Reason = fmt.Sprintf("%s was approved once in this session (policy once).", c.Tool)
		return
	}
	p, ok := e.policyOf(c.Key)
	if !ok {
		return
	}
	switch {
	case p == config.PolicyAlways && d.Decision == Allow:
		d.Decision = Ask
		d.Reason = say(c, " needs approval every time (policy always).")
	case p == config.PolicyTrust && d.Decision == Ask && c.InsideCwd() && c.Err == nil:
		d.Decision = Allow
		d.Reason = fmt.Sprintf("%s is trusted (policy trust).", c.Tool)
	case p == config.PolicyOnce && d.Decision == Ask:
		d.Once = true
		d.Reason = say(c, " needs approval the first time in this chat (policy once).")
	}
}

// policyOf is the approval policy configured for the tool whose key
// (tools.SameKey: a call's Key) is key.
func (e *Engine) policyOf(key string) (string, bool) {
	p, ok := e.policies[key]
	return p, ok
}

// finishAsk is step 8: an ask that cannot be asked becomes a deny with guidance.
func (e *Engine) finishAsk(c *command.Call, d Decision) Decision {
	if d.Decision != Ask {
		return d
	}
	if e.canPrompt() {
		return d // it can be asked; Suggest (which compiles a rule) is not needed
	}
	// the ask rule itself when it names something (an allow of the same
	// text overrides it); for a bare "ask: WebFetch" or a mode's ask, the
	// narrowest rules that cover the call, never the whole tool
	fix := d.Rule
	if r, err := matcher.ParseRule(fix); fix == "" || err != nil || !r.HasArg() || r.IsRegex() {
		fix = e.suggest(c)
	}
	why := "approval needed"
	if d.Rule != "" {
		why = "ask: " + d.Rule
	}
	switch {
	case e.mode == "dontAsk":
		d.Decision, d.Once = Deny, false
		d.Reason = fmt.Sprintf("%s needs approval (%s), but dontAsk mode never prompts. Add it to the allow list with /allow %s.", c.Tool, why, fix)
	case e.resumed && e.cfg.ResumeAsk != config.ResumeAskPrompt:
		d.Decision, d.Once = Deny, false
		d.Reason = fmt.Sprintf("%s needs approval (%s), but approval prompts are off for resumed sessions. Add it to the allow list with /allow %s, or start a fresh session with /new-session.", c.Tool, why, fix)
	}
	return d
}

// canPrompt reports whether an ask can be shown: not in dontAsk mode, nor
// in a resumed session whose prompts are off.
func (e *Engine) canPrompt() bool {
	return e.mode != "dontAsk" && (!e.resumed || e.cfg.ResumeAsk == config.ResumeAskPrompt)
}

// describe names a call in a sentence: "Bash (npm install)", "Read of /x".
func describe(c *command.Call) string {
	a, b, d, f := describeParts(c)
	return a + b + d + f
}

// describeParts is describe in the parts it is made of, for say.
func describeParts(c *command.Call) (tool, sep, what, end string) {
	if cmd := commandText(c); cmd != "" {
		return c.Tool, " (", short(cmd), ")"
	}
	switch {
	case c.Path != nil && c.Path.Abs != "":
		return c.Tool, " of ", c.Path.Abs, ""
	case c.URL != "":
		return c.Tool, " of ", short(c.URL), ""
	case c.Pattern != "":
		return c.Tool, " (", short(c.Pattern), ")"
	}
	return c.Tool, "", "", ""
}

// say is a sentence about c: describe(c) followed by the parts, built in
// one allocation (a decision's reason is built for every call).
func say(c *command.Call, parts ...string) string {
	a, b, d, f := describeParts(c)
	n := len(a) + len(b) + len(d) + len(f)
	for _, p := range parts {
		n += len(p)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, p := range [...]string{a, b, d, f} { // (a loop: less code to fetch than four writes)
		sb.WriteString(p)
	}
	for _, p := range parts {
		sb.WriteString(p)
	}
	return sb.String()
}

func short(s string) string {
	if !plainText(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// plainText reports whether s is already what strings.Fields and a join by
// single spaces make of it: ASCII, no space but single ones between words.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if ch := s[i]; ch > ' ' && ch < 0x80 {
			continue // (most bytes: printable ASCII, none of the cases below)
		}
		switch ch := s[i]; {
		case ch >= 0x80, ch == '\t', ch == '\n', ch == '\v', ch == '\f', ch == '\r':
			return false
		case ch == ' ' && (i == 0 || i == len(s)-1 || s[i+1] == ' '):
			return false
		}
	}
	return true
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
