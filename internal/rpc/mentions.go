package rpc

import (
	"context"
	"fmt"
	"os"
	"time"

	"vibing/internal/auditrow"
	"vibing/internal/auditspool"
	"vibing/internal/mention"
	"vibing/internal/policy"
)

// ViaMention is the audit via of a chat message's @-mentions (their source
// is the engine's, as in every row).
const ViaMention = "mention"

// mentions judges the @-mentions of a message before the editor sends it:
// the claude CLI reads every mentioned path into the prompt by itself (no
// tool call, no permission check), so a mention a Read deny rule covers is
// refused here, naming the rule, and every allowed one gets an audit row. A
// row that cannot be written refuses the message too.
//
// Params: lines (the chat's frontmatter), chat, cwd, text. Result: ok, and
// denied {text, path, rule, source, message} or allowed [{text, path}].
func (h *Host) mentions(_ context.Context, p params) (any, error) {
	lines, chat, cwd, err := p.chatParams()
	if err != nil {
		return nil, err
	}
	text, err := p.str("text", true)
	if err != nil {
		return nil, err
	}
	if len(mention.Find(text)) == 0 {
		return map[string]any{"ok": true, "allowed": []any{}}, nil
	}
	_, s, err := parseLines(lines)
	if err != nil {
		return failed(err.Error()), nil
	}
	ch, err := policy.Open(policy.Request{Config: h.cfg(), ConfigFile: h.ConfigFile, ChatFile: chat, Settings: &s, Dir: cwd})
	if err != nil {
		return failed(err.Error()), nil
	}
	home, _ := os.UserHomeDir()
	res := mention.Check(ch.Engine, text, ch.Cwd, home)
	spool := auditspool.For(h.cfg().AuditDB())
	now := time.Now()
	resumed := ch.Engine.Resumed() // for audit --what-if: how, and where, the engine decided
	if d := res.Denied; d != nil {
		msg := d.Refusal()
		row := auditspool.Entry{Time: now, Chat: ch.Path, Tool: "Read", Action: d.Decision.Action, Decision: string(auditrow.Deny), Rule: d.Decision.Rule, Source: d.Decision.Source, Via: ViaMention, Reason: msg,
			Resumed: &resumed, Cwd: ch.Cwd}
		if err := auditspool.Append(spool, row); err != nil {
			msg += fmt.Sprintf(" (The audit row could not be written either: %v.)", err)
		}
		return map[string]any{"ok": true, "denied": map[string]any{
			"text": d.Text, "path": d.Path, "rule": d.Decision.Rule, "source": d.Decision.Source, "message": msg}}, nil
	}
	allowed := make([]any, 0, len(res.Allowed))
	for _, a := range res.Allowed {
		row := auditspool.Entry{Time: now, Chat: ch.Path, Tool: "Read", Action: a.Decision.Action, Decision: string(auditrow.Allow), Rule: a.Decision.Rule, Source: a.Decision.Source, Via: ViaMention,
			Reason:  fmt.Sprintf("@%s in a chat message is read by the claude CLI itself; no Read deny rule covers it (%s)", a.Text, a.Decision.Reason),
			Resumed: &resumed, Cwd: ch.Cwd}
		if err := auditspool.Append(spool, row); err != nil {
			return failed(fmt.Sprintf("vibing could not write the audit row for the message's @-mentions (%v), so the message is not sent", err)), nil
		}
		allowed = append(allowed, map[string]any{"text": a.Text, "path": a.Path})
	}
	return map[string]any{"ok": true, "allowed": allowed}, nil
}
