package matcher

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"vibing/internal/tools"
)

// Suggest returns the narrowest useful rule for "always" answers to this call,
// e.g. "Bash(npm install:*)", "Edit(src/a.go)", "WebFetch(github.com)"; never a
// bare "Bash" for a Bash call.
func Suggest(c *Call) string {
	if c == nil {
		return ""
	}
	info, known := tools.Lookup(c.Tool)
	var s string
	switch {
	case c.Tool == "Bash":
		return suggestBash(c)
	case c.Tool == "WebFetch":
		if c.Host != "" {
			s = "WebFetch(" + c.Host + ")"
		}
	case known && info.Arg == tools.ArgPath && c.Path != nil:
		name := c.Tool
		if name == "MultiEdit" || name == "NotebookEdit" {
			name = "Edit"
		}
		p := c.Path.Abs
		if r, ok := rel(c.Path.Abs, c.Env.Cwd); ok && c.InsideCwd() {
			p = r
		}
		s = name + "(" + escapeGlob(p) + ")"
	case known && info.Arg == tools.ArgPattern && c.Pattern != "":
		s = c.Tool + "(" + c.Pattern + ")"
	}
	if s != "" {
		if r, err := ParseRule(s); err == nil {
			return r.Text
		}
	}
	return c.Tool
}

func suggestBash(c *Call) string {
	var cmd *Command
	for i := range c.Commands {
		if c.Commands[i].parent < 0 {
			cmd = &c.Commands[i]
			break
		}
	}
	var words []string
	if cmd != nil {
		words = cmd.Words
	} else {
		words = strings.Fields(c.Command)
	}
	if len(words) == 0 {
		return "Bash(true)"
	}
	first := quoteWord(words[0])
	if len(words) > 1 && plainWord(words[1]) {
		if r, err := ParseRule("Bash(" + first + " " + words[1] + ":*)"); err == nil {
			return r.Text
		}
	}
	if r, err := ParseRule("Bash(" + first + ":*)"); err == nil {
		return r.Text
	}
	return "Bash(" + strings.Join(strings.Fields(c.Command), " ") + ")"
}

// plainWord reports whether w looks like a subcommand (install, push,
// run-script), not an option, a path or a file name.
func plainWord(w string) bool {
	if w == "" || w[0] < 'a' || w[0] > 'z' {
		return false
	}
	for i := 0; i < len(w); i++ {
		ch := w[i]
		if !(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') && ch != '-' && ch != '_' {
			return false
		}
	}
	return true
}

func quoteWord(w string) string {
	if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
		return q
	}
	return w
}

func escapeGlob(p string) string {
	if !strings.ContainsAny(p, `*?[]{}\`) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
