package session

import (
	"fmt"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// Deny rules held back (step 2): a rule of the person's that fires only on
// what the engine cannot see through, or on a folder read whole that holds
// what it names, asks once where a person can answer.

// wholeFolder says, for a Read deny rule that fires on v only because v
// reads a folder whole (grep -r x ., the Grep tool over a folder) that holds
// a file the rule names, which folder; "" otherwise (also when the rule
// names every file of that folder: then nothing else is read).
func wholeFolder(v *command.Call, r *rule) string {
	if r.Rule == nil || !r.Rule.OnFiles() {
		return ""
	}
	if v.Tool == "Bash" {
		return r.Rule.TreeHit(v, matcher.DenyList)
	}
	if searchNote(v, r) != "" {
		if root, _ := v.SearchRoot(); !r.Rule.NamesAllBelow(&root, v) {
			return root.Abs
		}
	}
	return ""
}

// softens reports whether the deny rule r, which fires on v, asks rather
// than refuses where a person can answer: it fires only on what the engine
// cannot see through, or on a folder read whole that holds what it names,
// and it is no rule of the managed layer (the organisation's floor never
// asks). The person then judges what the engine cannot.
func (e *Engine) softens(v *command.Call, r *rule) bool {
	if r.err != nil || v.Err != nil || r.layer == LayerManaged {
		return false
	}
	return r.Rule.Unseen(v, matcher.DenyList) != "" || wholeFolder(v, r) != ""
}

// unseenDenyAsk is the decision on c when the deny rule r fires on its
// view v only on what the engine cannot see (softens): an ask in every
// mode, answered once (an always or session answer would not outrank the
// rule), or the refusal where no prompt can be shown.
func (e *Engine) unseenDenyAsk(c, v *command.Call, r *rule) Decision {
	var what string
	if dir := wholeFolder(v, r); dir != "" {
		what = fmt.Sprintf("it reads all of %s, which holds what the rule %s denies", dir, r.String())
	} else {
		what = fmt.Sprintf("%s, because %s; the rule %s denies what it may touch", unseenWhat(r), r.Rule.Unseen(v, matcher.DenyList), r.String())
	}
	if !e.canPrompt() {
		d := e.denial(c, v, r)
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
