package hook

import (
	"fmt"
	"path/filepath"
	"strings"

	"vibing/internal/auditspool"
	"vibing/internal/session"
)

// Mention is one @-mention in a prompt: the text after the "@" as written
// and every path the CLI may read for it.
type Mention struct {
	Text  string
	Paths []string
}

// trailing are characters the CLI drops from the end of a mention
// ("see @a.txt, then" reads a.txt). Measured with 2.1.330: , ; : ! ? ) '
// are dropped; the set here is wider on purpose.
const trailing = ".,;:!?)]}>'\"`"

// Mentions finds the @-mentions of a prompt. It reads more than the CLI
// does — an "@" anywhere, not only after a space; the text with and without
// trailing punctuation, a #fragment or a :line suffix — so that no form the
// CLI reads is missed; a path that is not there costs nothing.
func Mentions(prompt string) []Mention {
	var out []Mention
	for i := 0; i < len(prompt); i++ {
		if prompt[i] != '@' {
			continue
		}
		rest := prompt[i+1:]
		var text string
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexAny(rest[1:], "\"\n")
			if end < 0 {
				end = len(rest) - 1
			}
			text = rest[1 : 1+end]
		} else {
			end := strings.IndexFunc(rest, isSpace)
			if end < 0 {
				end = len(rest)
			}
			text = rest[:end]
		}
		if m := candidates(text); len(m.Paths) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

func candidates(text string) Mention {
	m := Mention{Text: text}
	add := func(p string) {
		p = strings.TrimRight(p, trailing)
		if p == "" || p == "@" {
			return
		}
		for _, q := range m.Paths {
			if q == p {
				return
			}
		}
		m.Paths = append(m.Paths, p)
	}
	add(text)
	if i := strings.IndexByte(text, '#'); i >= 0 {
		add(text[:i])
	}
	for i := strings.IndexByte(text, ':'); i >= 0; {
		if i+1 < len(text) && text[i+1] >= '0' && text[i+1] <= '9' {
			add(text[:i])
		}
		j := strings.IndexByte(text[i+1:], ':')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	if t := strings.TrimRight(text, trailing); t != text {
		add(t)
	}
	// the untrimmed text too: a file may really end in a dot
	if text != "" && !contains(m.Paths, text) {
		m.Paths = append(m.Paths, text)
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// resolve makes a mentioned path absolute from the session's folder.
func (h *Hook) resolve(p, cwd string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if h.Home != "" {
			return filepath.Join(h.Home, p[1:])
		}
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case cwd != "":
		return filepath.Join(cwd, p)
	}
	return p
}

// promptSubmit blocks a prompt that mentions a file a Read deny rule
// covers (the CLI would read it into the prompt by itself) and records
// every mention it lets through.
func (h *Hook) promptSubmit(in *Input) []byte {
	mentions := Mentions(in.Prompt)
	if len(mentions) == 0 {
		return Empty
	}
	eng, err := h.Load(in, Mode(in.PermissionMode))
	if err != nil {
		reason := fmt.Sprintf("vibing-agent hook could not load its rules (%v), so a prompt with @-mentions is not sent.", err)
		_ = h.record(auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: "Read", Decision: "deny", Source: Source, Reason: reason})
		return blockAnswer(reason)
	}
	cwd := absOr(in.Cwd)
	var rows []auditspool.Entry
	for _, m := range mentions {
		var first *auditspool.Entry
		for _, p := range m.Paths {
			d := eng.DecideIn("Read", map[string]any{"file_path": h.resolve(p, cwd)}, cwd)
			row := auditspool.Entry{Chat: h.Chat, SessionID: in.SessionID, Tool: "Read", Action: d.Action, Rule: d.Rule, Source: Source}
			if d.Decision == session.Deny {
				reason := fmt.Sprintf("vibing: the prompt mentions @%s, which %s keeps from the model (%s) The prompt was not sent: remove the mention and send it again.", m.Text, ruleName(d), d.Reason)
				row.Decision, row.Reason = "deny", reason
				if err := h.record(row); err != nil {
					return blockAnswer(fmt.Sprintf("%s (The audit row could not be written either: %v.)", reason, err))
				}
				return blockAnswer(reason)
			}
			if first == nil {
				row.Decision = "allow"
				row.Reason = fmt.Sprintf("@%s in the prompt is read by Claude Code itself; no Read deny rule covers it (vibing: %s)", m.Text, d.Reason)
				first = &row
			}
		}
		rows = append(rows, *first)
	}
	for _, row := range rows {
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
