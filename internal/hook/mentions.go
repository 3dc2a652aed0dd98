package hook

import (
	"fmt"

	"vibing/internal/auditrow"
	"vibing/internal/auditspool"
	"vibing/internal/mention"
	"vibing/internal/session"
)

// Mentions finds the @-mentions of a prompt (see mention.Find).
func Mentions(prompt string) []mention.Mention { return mention.Find(prompt) }

// promptSubmit blocks a prompt that mentions a file a Read deny rule
// covers (the CLI would read it into the prompt by itself) and records
// every mention it lets through.
func (h *Hook) promptSubmit(in *Input) []byte {
	if len(mention.Find(in.Prompt)) == 0 {
		return Empty
	}
	eng, err := h.Load(in, Mode(in.PermissionMode))
	if err != nil {
		reason := fmt.Sprintf("vibing-agent hook could not load its rules (%v), so a prompt with @-mentions is not sent.", err)
		_ = h.record(auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: "Read", Decision: string(auditrow.Deny), Source: session.SourceConfig, Via: Via, Reason: reason})
		return blockAnswer(reason)
	}
	cwd := absOr(in.Cwd)
	res := mention.Check(eng, in.Prompt, cwd, h.Home)
	if d := res.Denied; d != nil {
		reason := fmt.Sprintf("vibing: the prompt mentions @%s, which %s keeps from the model (%s) The prompt was not sent: remove the mention and send it again.", d.Text, ruleName(d.Decision), d.Decision.Reason)
		row := auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: "Read", Action: d.Decision.Action, Rule: d.Decision.Rule, Source: d.Decision.Source, Via: Via, Decision: string(auditrow.Deny), Reason: reason}
		row.Resumed, row.Cwd = replayOf(eng)
		if err := h.record(row); err != nil {
			return blockAnswer(fmt.Sprintf("%s (The audit row could not be written either: %v.)", reason, err))
		}
		return blockAnswer(reason)
	}
	for _, a := range res.Allowed {
		row := auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: "Read", Action: a.Decision.Action, Rule: a.Decision.Rule, Source: a.Decision.Source, Via: Via,
			Decision: string(auditrow.Allow), Reason: fmt.Sprintf("@%s in the prompt is read by Claude Code itself; no Read deny rule covers it (vibing: %s)", a.Text, a.Decision.Reason)}
		row.Resumed, row.Cwd = replayOf(eng)
		if err := h.record(row); err != nil {
			return blockAnswer(fmt.Sprintf("vibing could not write the audit row for the prompt's @-mentions (%v), so the prompt is not sent.", err))
		}
	}
	return Empty
}

func ruleName(d session.Decision) string {
	if d.Rule != "" {
		return "the rule " + d.Rule
	}
	return "vibing's " + d.Source
}
