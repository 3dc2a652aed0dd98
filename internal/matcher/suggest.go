package matcher

import (
	"path"
	"slices"
	"strings"

	"vibing/internal/command"
	"vibing/internal/tools"
)

// Suggest returns the rule set an "always" answer to this call adds: the
// narrowest useful rules that together cover the call, as one line in the
// form /allow takes (rules separated by spaces outside parentheses, see
// SplitRules), e.g. "Bash(npm install:*)", "Edit(src/a.go)",
// "WebFetch(github.com)", "Bash(python3 hello.py) Bash(echo ok)"; never a
// bare "Bash" for a Bash call.
func Suggest(c *command.Call) string {
	return JoinRules(SuggestRules(c))
}

// SuggestRules is Suggest as a list: one rule for most calls; for a Bash line,
// one rule per simple command the allow list must cover (a command an
// earlier rule of the set already covers gets none) and a Write rule per
// file its redirections write.
func SuggestRules(c *command.Call) []string {
	if c == nil {
		return nil
	}
	info, known := c.Info, c.Info != nil
	var s string
	switch {
	case c.Tool == "Bash":
		return suggestBash(c, nil)
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
		if r, ok := command.Rel(c.Path.Abs, c.Env.Cwd); ok && c.InsideCwd() {
			p = r
		}
		s = name + "(" + escapeGlob(p) + ")"
	case known && info.Arg == tools.ArgPattern && c.Pattern != "":
		s = c.Tool + "(" + c.Pattern + ")"
	}
	if s != "" {
		if r, err := ParseRule(s); err == nil {
			return []string{r.Text}
		}
	}
	return []string{c.Tool}
}

// JoinRules writes a rule set as one line (the form /allow takes).
func JoinRules(rules []string) string { return strings.Join(rules, " ") }

// SplitRules reads a rule set written as one line: rules are separated by
// whitespace outside parentheses, and a /regex/ rule runs to the '/' that
// ends a word (as the editor's /allow reads its arguments). Each piece is
// returned as written, unchecked.
func SplitRules(s string) []string {
	var out []string
	i, n := 0, len(s)
	for i < n {
		for i < n && isSpace(s[i]) {
			i++
		}
		if i >= n {
			break
		}
		start, j := i, i
		if s[j] == '/' {
			j++
			for j < n {
				if s[j] == '\\' {
					j += 2
					continue
				}
				if s[j] == '/' && (j+1 == n || isSpace(s[j+1])) {
					break
				}
				j++
			}
			i = min(j+1, n)
		} else {
			depth := 0
			for j < n {
				ch := s[j]
				if ch == '(' {
					depth++
				} else if ch == ')' && depth > 0 {
					depth--
				} else if isSpace(ch) && depth == 0 {
					break
				}
				j++
			}
			i = j
		}
		out = append(out, s[start:i])
	}
	return out
}

func isSpace(ch byte) bool { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' }

// suggestBash proposes, for each simple command an allow list must cover,
// the narrowest useful rule that covers it: Bash(tool sub:*) when the second
// word is a subcommand (npm install lodash), else that exact command
// (Bash(cat hello.py), Bash(ls -la), Bash(timeout 5 npm test)), else the
// longest prefix of words known before the command runs (Bash(echo:*) for
// echo $(date), Bash(sh -c:*) for the shell that runs a script whose own
// commands get rules of their own). Each file a redirection writes gets its
// Write rule. It never proposes a bare Bash nor a pattern with a '*' other
// than the trailing ":*".
// SuggestBesideReads is SuggestRules without a rule for the commands of a
// Bash line that are reads the mode allows (the tail of npm test | tail
// -20, an echo), when the rules left cover the line with those reads
// (CoversWithReads); else it is SuggestRules. It is for a chat whose mode
// lets such lines pass beside their allowed commands.
func SuggestBesideReads(c *command.Call, repo command.RepoCheck) []string {
	if c == nil || c.Tool != "Bash" || !c.SeenWhole() {
		return SuggestRules(c)
	}
	if repo == nil {
		repo = func() bool { return false }
	}
	out := suggestBash(c, repo)
	rules := make([]*Rule, 0, len(out))
	for _, t := range out {
		r, err := ParseRule(t)
		if err != nil {
			return SuggestRules(c)
		}
		rules = append(rules, r)
	}
	if _, ok := CoversWithReads(rules, c, repo); !ok {
		return SuggestRules(c)
	}
	return out
}

// suggestBash is SuggestRules for a Bash line; with skip, commands the mode
// allows as reads (skip is their repository check) get no rule.
func suggestBash(c *command.Call, skip command.RepoCheck) []string {
	if len(c.Commands) == 0 || c.Err != nil {
		words := strings.Fields(c.Command)
		if len(words) == 0 {
			return []string{"Bash(true)"}
		}
		return []string{suggestWords(c, words, nil)}
	}
	var out []string
	var parsed []*Rule
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.DenyOnly() || cmd.DynamicName || (skip != nil && cmd.ModeRead(skip)) {
			continue
		}
		if len(out) == maxSuggested {
			break // a longer set is no answer a person can judge: it will not cover the line
		}
		if ok, _ := covers(parsed, &command.Call{Tool: "Bash", Commands: []command.Command{*cmd}, Env: c.Env}, nil); ok {
			continue
		}
		if s := suggestCommand(c, cmd); s != "" {
			if r, err := ParseRule(s); err == nil {
				out = append(out, r.Text)
				parsed = append(parsed, r)
			}
		}
	}
	for _, w := range nonTrivialWrites(c) {
		if w.Unsure {
			continue
		}
		wc := command.Prepare("Write", map[string]any{"file_path": w.Abs}, c.Env)
		if s := SuggestRules(wc); len(s) == 1 && !slices.Contains(out, s[0]) {
			out = append(out, s[0])
		}
	}
	if len(out) == 0 {
		// nothing a rule narrower than Bash can name (a command computed at
		// run time): name the first word, which at least says what runs
		return []string{suggestWords(c, strings.Fields(c.Command), nil)}
	}
	return out
}

// maxSuggested bounds the rules one suggestion holds.
const maxSuggested = 16

// suggestCommand is the narrowest useful rule that covers one simple
// command, or "" when no rule short of a bare Bash does.
func suggestCommand(c *command.Call, cmd *command.Command) string {
	words := cmd.Words
	if len(words) == 0 {
		return ""
	}
	wrapped := len(cmd.More().Wrappers) > 0
	var cands []string
	if !wrapped && hasSubcommand(c, words) && !cmd.DynAt(1) {
		if runsNext(words[0], words[1]) {
			// npm run build, uv run pytest: the script or program it runs is part of the rule
			if len(words) > 2 && !cmd.DynAt(2) {
				cands = append(cands, "Bash("+command.QuoteWord(words[0])+" "+words[1]+" "+command.QuoteWord(words[2])+":*)")
			}
		} else {
			cands = append(cands, "Bash("+command.QuoteWord(words[0])+" "+words[1]+":*)")
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = command.QuoteWord(w)
	}
	cands = append(cands, "Bash("+strings.Join(quoted, " ")+")")
	// the longest prefix of words known before the command runs; behind a
	// wrapper (timeout 5 make) it must reach the wrapped command's name
	static := 0
	for static < len(words) && !cmd.DynAt(static) {
		static++
	}
	least := 1
	if wrapped {
		least = len(words) - len(cmd.Args) + 1
	}
	seen := map[int]bool{}
	for _, k := range []int{min(static, len(words)-1), least + 1, least} {
		if k >= least && k <= min(static, len(words)-1) && !seen[k] {
			seen[k] = true
			cands = append(cands, "Bash("+strings.Join(quoted[:k], " ")+":*)")
		}
	}
	for _, s := range cands {
		r, ok := suggestRule(s)
		if !ok {
			continue
		}
		pr, err := ParseRule(r)
		if err == nil && pr.allowCommand(cmd) {
			return r
		}
	}
	return ""
}

// suggestWords is the rule for words that did not parse as commands.
func suggestWords(c *command.Call, words []string, _ *command.Command) string {
	if len(words) == 0 {
		return "Bash(true)"
	}
	first := command.QuoteWord(words[0])
	if hasSubcommand(c, words) && !runsNext(words[0], words[1]) {
		if r, ok := suggestRule("Bash(" + first + " " + words[1] + ":*)"); ok {
			return r
		}
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = command.QuoteWord(w)
	}
	if r, ok := suggestRule("Bash(" + strings.Join(quoted, " ") + ")"); ok && exactRuleFor(r, words) {
		return r
	}
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

// subcommandPrograms take a subcommand as their first argument (git push,
// npm install, docker compose): a rule for one of their commands names the
// subcommand and leaves the arguments open (Bash(npm install:*)). For other
// programs (echo ok, cd src, python3 hello.py) the rule is the exact command.
var subcommandPrograms = command.Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"git": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true, "go": true,
		"cargo": true, "rustup": true, "docker": true, "podman": true, "kubectl": true, "helm": true,
		"terraform": true, "make": true, "just": true, "pip": true, "pip3": true, "uv": true,
		"poetry": true, "pipenv": true, "pdm": true, "hatch": true, "conda": true, "gradle": true,
		"mvn": true, "dotnet": true, "gh": true, "apt": true, "apt-get": true, "brew": true,
		"systemctl": true, "composer": true, "bundle": true, "rake": true, "mix": true, "stack": true,
		"cabal": true, "dune": true, "swift": true, "nix": true, "tox": true, "nox": true,
		"bazel": true, "cmake": true, "ninja": true, "meson": true, "flutter": true, "dart": true,
	}
}}

// hasSubcommand reports whether words start with a program that takes a
// subcommand and a word that looks like one (not a file in the folder).
func hasSubcommand(c *command.Call, words []string) bool {
	return len(words) > 1 && subcommandPrograms.Get()[path.Base(words[0])] && subcommandWord(words[1]) && !c.NamesFile(words[1])
}

// runsNext reports whether sub makes prog run what follows (npm run x, npm
// exec x, uv run x, docker run x): a rule stopping at the subcommand would
// allow every script or program.
func runsNext(prog, sub string) bool {
	switch sub {
	case "run", "run-script", "exec", "x", "dlx", "start":
		return true
	}
	return command.RunnerSubcommands.Get()[path.Base(prog)][sub]
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
