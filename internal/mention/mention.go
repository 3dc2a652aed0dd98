// Package mention finds the @-mentions of a prompt — the paths the claude
// CLI reads into the prompt by itself, with no tool call and no permission
// check — and judges each against the Read rules of an engine, so that the
// editor (before it sends a chat message) and the Claude Code hook (on
// UserPromptSubmit) refuse a prompt that would carry a denied file to the
// model.
package mention

import (
	"fmt"
	"path/filepath"
	"strings"

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

// Find finds the @-mentions of a prompt. It reads more than the CLI
// does — an "@" anywhere, not only after a space; the text with and without
// trailing punctuation, a #fragment or a :line suffix — so that no form the
// CLI reads is missed; a path that is not there costs nothing.
func Find(prompt string) []Mention {
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

// Resolve makes a mentioned path absolute from cwd ("~" is home).
func Resolve(p, cwd, home string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home != "" {
			return filepath.Join(home, p[1:])
		}
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case cwd != "":
		return filepath.Join(cwd, p)
	}
	return p
}

// Decider decides a tool call (a *session.Engine).
type Decider interface {
	DecideIn(tool string, input map[string]any, cwd string) session.Decision
}

// Hit is one mention judged: the decision of a Read of the path it names.
type Hit struct {
	Text     string // the mention as written (after the "@")
	Path     string // the absolute path judged
	Decision session.Decision
}

// Result is every mention of a prompt judged. Denied is the first mention a
// Read deny covers (nil when none); Allowed holds one hit per other mention.
type Result struct {
	Denied  *Hit
	Allowed []Hit
}

// Check judges every mention of prompt as a Read in cwd. A mention whose
// forms (with and without a #fragment, a :line, trailing punctuation) any
// of which a deny covers is denied.
func Check(eng Decider, prompt, cwd, home string) Result {
	var res Result
	for _, m := range Find(prompt) {
		var first *Hit
		for _, p := range m.Paths {
			abs := Resolve(p, cwd, home)
			d := eng.DecideIn("Read", map[string]any{"file_path": abs}, cwd)
			h := Hit{Text: m.Text, Path: abs, Decision: d}
			if d.Decision == session.Deny {
				res.Denied = &h
				return res
			}
			if first == nil {
				first = &h
			}
		}
		if first != nil {
			res.Allowed = append(res.Allowed, *first)
		}
	}
	return res
}

// Refusal is the sentence that tells the person why a prompt is not sent.
func (h Hit) Refusal() string {
	by := "vibing's " + h.Decision.Source
	if h.Decision.Rule != "" {
		by = "the rule " + h.Decision.Rule
	}
	return fmt.Sprintf("the message mentions @%s, which %s keeps from the model (%s) It was not sent: remove the mention and send it again.", h.Text, by, h.Decision.Reason)
}
