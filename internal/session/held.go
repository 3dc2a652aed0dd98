package session

import (
	"fmt"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// Step 2, the deny rules, and those held back: a rule of the person's that
// fires only on what the engine cannot see through, or on a folder read
// whole that holds what it names, asks once where a person can answer.

// denyRule is step 2 for the rules of one view v of a call (gates: their
// tests side by side, or nil): the rule that denies it, with how it
// matched, or nil.
func denyRule(v *command.Call, rules []*rule, gates []ruleGate, kernel map[string]bool) (*rule, *matcher.Hit) {
	var unseenBy *rule // a rule that fires only on what the engine cannot see, or on a folder read whole
	var unseenHit *matcher.Hit
	var lw matcher.LineWords // (v's words, for the word tests)
	if len(gates) != len(rules) {
		gates = nil
	}
	for i, r := range rules {
		if gates != nil && gates[i].rejects(v, &lw) {
			continue // (the rule itself is not read)
		}
		if !r.matches(v, matcher.DenyList) {
			continue
		}
		h := r.Rule.HowMatched(v, matcher.DenyList) // (nil Rule, a rule that could not be parsed: an empty Hit)
		if kernel[r.String()] && r.err == nil && r.layer != LayerManaged && h.HostUnseen {
			continue // the sandbox's proxy refuses the host, whichever it is
		}
		if (unseenBy == nil || kernel != nil) && r.err == nil && v.Err == nil && h.Indirect() {
			if kernel[r.String()] && r.layer != LayerManaged {
				// the sandbox holds it (HoldByKernel): what the line cannot
				// be seen to do, the kernel refuses
				continue
			}
			// name a rule that matches what the line spells out, if one
			// does, before one that fires on what cannot be seen
			if unseenBy == nil {
				unseenBy, unseenHit = r, h
			}
			continue
		}
		return r, h
	}
	return unseenBy, unseenHit
}

// denial is the deny of rule r on view v of call c (h: how r matched v),
// with its reason.
func (e *Engine) denial(c, v *command.Call, r *rule, h *matcher.Hit) Decision {
	src := r.decisionSource(SourceDenyList)
	d := Decision{Decision: Deny, Rule: r.String(), Source: src}
	switch {
	case r.err != nil:
		d.Reason = fmt.Sprintf("%s is denied because the deny rule %q is invalid (%v); fix or remove it.", describe(c), r.String(), r.err)
	case v.Err != nil:
		d.Reason = fmt.Sprintf("%s is denied by the rule %s, which fires on any call that cannot be checked (%v).", describe(c), r.String(), v.Err)
	case h.Unseen != "":
		d.Reason = fmt.Sprintf("%s is denied by the rule %s: %s, because %s.", describe(c), r.String(), unseenWhat(r), h.Unseen)
	case h.File != "":
		d.Reason = fmt.Sprintf("%s is denied by the rule %s, as %s.", describe(c), r.String(), h.File)
	default:
		d.Reason = say(c, " is denied by the rule ", r.String(), searchNote(h), hostClause(h), ".")
	}
	return d
}

// unseenWhat says what the engine cannot see for a rule that fires on it.
func unseenWhat(r *rule) string {
	if r.Rule != nil && r.Rule.OnFiles() {
		return "the engine cannot tell which files it touches"
	}
	return "the engine cannot see what it runs"
}

// softens reports whether the deny rule r, which fires on v as h says,
// asks rather than refuses where a person can answer: it fires only on what
// the engine cannot see through, or on a folder read whole that holds what
// it names (h.Indirect), and it is no rule of the managed layer (the
// organisation's floor never asks). The person then judges what the engine
// cannot.
func (e *Engine) softens(v *command.Call, r *rule, h *matcher.Hit) bool {
	if r.err != nil || v.Err != nil || r.layer == LayerManaged {
		return false
	}
	return h.Indirect()
}

// unseenDenyAsk is the decision on c when the deny rule r fires on its
// view v (as h says) only on what the engine cannot see (softens): an ask in
// every mode, answered once (an always or session answer would not outrank
// the rule), or the refusal where no prompt can be shown.
func (e *Engine) unseenDenyAsk(c, v *command.Call, r *rule, h *matcher.Hit) Decision {
	var what string
	if h.Folder != "" {
		what = fmt.Sprintf("it reads all of %s, which holds what the rule %s denies", h.Folder, r.String())
	} else {
		what = fmt.Sprintf("%s, because %s; the rule %s denies what it may touch", unseenWhat(r), h.Unseen, r.String())
	}
	if !e.canPrompt() {
		d := e.denial(c, v, r, h)
		if e.mode == "dontAsk" {
			d.Reason += " It would ask where a prompt can be shown; dontAsk mode never prompts."
		} else {
			d.Reason += " It would ask where a prompt can be shown; approval prompts are off for resumed sessions (/new-session starts a fresh one)."
		}
		return d
	}
	return Decision{Decision: Ask, Rule: r.String(), Source: r.decisionSource(SourceDenyList), NoAlways: true, NoSession: true,
		Reason: fmt.Sprintf("%s needs your approval in every mode: %s. Approve it only if it leaves that alone.", describe(c), what),
		Limit:  fmt.Sprintf("the deny rule %s can be set aside for this call only, never always or for the session", r.String())}
}
