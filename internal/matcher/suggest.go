package matcher

import (
	"os"
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

// suggestBash proposes a rule for the line's first simple command:
// Bash(tool sub:*) when the second word is a subcommand (npm install
// lodash), Bash(ls) for a single word, and otherwise that exact command
// (Bash(cat hello.py), Bash(ls -la)), so an "always" answer never allows
// more than the command's own subcommand. It never proposes a bare Bash nor
// a pattern with a '*' other than the trailing ":*".
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
	if len(words) > 1 && subcommandWord(words[1]) && !c.namesFile(words[1]) {
		if r, ok := suggestRule("Bash(" + first + " " + words[1] + ":*)"); ok {
			return r
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = quoteWord(w)
	}
	if r, ok := suggestRule("Bash(" + strings.Join(quoted, " ") + ")"); ok && exactRuleFor(r, words) {
		return r
	}
	// The command cannot be written as an exact rule (a '*' in a word,
	// whitespace the rule would fold): fall back to its name.
	if r, ok := suggestRule("Bash(" + first + ":*)"); ok {
		return r
	}
	return "Bash(true)"
}

// suggestRule parses a proposed rule and refuses any with a wildcard '*'.
func suggestRule(text string) (string, bool) {
	r, err := ParseRule(text)
	if err != nil || r.kind != kindBash || r.mode == bashWildcard {
		return "", false
	}
	if strings.Contains(strings.TrimSuffix(r.Text, ":*)"), "*") {
		return "", false
	}
	return r.Text, true
}

// exactRuleFor reports whether the rule text is an exact rule naming words.
func exactRuleFor(text string, words []string) bool {
	r, err := ParseRule(text)
	return err == nil && r.mode == bashExact && wordsEqual(r.words, words)
}

// subcommandWord reports whether w looks like a subcommand (install, push,
// run-script): lower-case letters, digits and dashes, not an option, a path
// or a file name.
func subcommandWord(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for i := 0; i < len(w); i++ {
		ch := w[i]
		if !(ch >= 'a' && ch <= 'z') && !(ch >= '0' && ch <= '9') && ch != '-' {
			return false
		}
	}
	return true
}

// namesFile reports whether w names an existing file or folder in the
// working directory (then it is an operand, not a subcommand: `cat README`).
func (c *Call) namesFile(w string) bool {
	if c.Env.Cwd == "" {
		return false
	}
	_, err := os.Lstat(joinDir(c.Env.Cwd, w))
	return err == nil
}

// quoteWord quotes w for a shell line. A word a rule could not hold as
// written — with '*' (a wildcard in rules), unbalanced parentheses, or whitespace other
// than single spaces (rules fold whitespace) — is written as $'...' with
// those bytes escaped, so the rule names exactly that word.
func quoteWord(w string) string {
	if strings.ContainsRune(w, '*') || !balanced(w) || strings.Join(strings.Fields(w), " ") != w {
		return ansiQuote(w)
	}
	if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
		return q
	}
	return ansiQuote(w)
}

func ansiQuote(w string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(w); i++ {
		ch := w[i]
		if (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strings.IndexByte(",._+:@%/=-", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		b.WriteString(`\x`)
		b.WriteByte(hex[ch>>4])
		b.WriteByte(hex[ch&15])
	}
	b.WriteByte('\'')
	return b.String()
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
