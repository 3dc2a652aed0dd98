package matcher

import (
	"fmt"
	"strings"
	"time"

	"github.com/dlclark/regexp2"

	"vibing/internal/command"
	"vibing/internal/hostaddr"
	"vibing/internal/pathglob"
	"vibing/internal/tools"
)

// regexTimeout bounds one regex evaluation, and regexBudget all regex
// evaluations on one call (a line of 10,000 simple commands is tried
// against every regex rule once per command). A pattern that runs longer, or
// is reached once the budget is spent, counts as matching in deny/ask and as
// not matching in allow. A decision thus spends at most about
// regexBudget + regexTimeout in regex rules.
const (
	regexTimeout = 50 * time.Millisecond
	regexBudget  = 250 * time.Millisecond
)

type ruleKind int

const (
	kindTool    ruleKind = iota // a bare tool: Bash, Read, mcp__github__create_issue
	kindPrefix                  // a tool-name prefix: mcp__github, mcp__github__*, Note*
	kindBash                    // Bash(...)
	kindPath                    // Read(...), Edit(...), ...
	kindDomain                  // WebFetch(...)
	kindPattern                 // Glob(...), Grep(...), WebSearch(...), Task(...)
	kindRegex                   // /regex/
)

type bashMode int

const (
	bashExact    bashMode = iota // Bash(npm install)
	bashPrefix                   // Bash(npm:*)
	bashWildcard                 // Bash(npm run *)
)

// Rule is one compiled permission rule.
type Rule struct {
	Text string // canonical text, e.g. "Bash(npm:*)", "Read(src/**/*.ts)", "/tool:Bash:git .*/"

	kind ruleKind
	// paths, for a first cheap test (cannotMatchFile), kept by kind so
	// that the test reads one cache line of the rule
	tailEnd uint64 // endWord(tail) and endMask(len(tail)): a first test of tail in one
	tailMsk uint64 // compare of words, without a call (EndTest, cannotEnd)
	tail    string // the literal end of every path the pattern matches
	need    string // a literal run every path the pattern, or what lies below it, holds
	last    string // the pattern's last name (lastName)

	Tool string // canonical tool name (or MCP name / prefix); empty for regex rules
	Arg  string // the argument inside the parentheses, as written; "" for bare rules
	// key is Tool as tools.Same compares names (tools.SameKey), worked
	// out once here: a call's (command.Call.Key) is compared with it
	key  string
	info *tools.Info // Tool's entry in the table; nil for an MCP tool, a prefix and a regex

	prefix string // kindPrefix: lower-cased tool-name prefix

	// Bash
	mode  bashMode
	words []string  // exact and prefix rules
	lead  uint64    // exact and prefix rules: leadKey(words[0]), a first test of a command (coveredBy); 0 for none
	flags *flagSpec // exact and prefix rules with arguments: deny/ask compare options by meaning
	wild  string    // wildcard rules: the pattern text
	// the wildcard rule also matches the command without its trailing " *"
	wildBare string
	wildNeed string // what every text a wildcard rule matches starts with (the text before its first '*')
	// spelled are the exact or prefix rule's words with a program's short
	// names spelled out (command.SpelledOut: Bash(npm i:*) is also npm
	// install), as rules of their own; deny and ask try them too
	spelled []*Rule
	// spelledLead says a spelling starts with another word (Bash(pip3
	// install:*) is also pip install): the rule is kept for any line
	// (CommandKey) and tried on any command (leadOther)
	spelledLead bool

	// paths: the pattern and its anchor (deny and ask read what it names,
	// allow what it spells)
	pat command.PathPattern

	// domains: the host, its subdomains and NAT64 address worked out when
	// the rule is read
	host hostaddr.Pattern

	re *regexp2.Regexp
}

// HasArg reports whether the rule has an argument (is narrower than the whole tool).
func (r *Rule) HasArg() bool { return r.Arg != "" }

// IsRegex reports whether the rule is a /regex/ action-string rule.
func (r *Rule) IsRegex() bool { return r.kind == kindRegex }

func ruleErr(text, example, format string, a ...any) *RuleError {
	return &RuleError{Rule: text, Msg: fmt.Sprintf(format, a...), Example: example}
}

// ParseReferenceRule is ParseRule for the slow twin of the matcher: the
// rule it returns matches as the rule ParseRule returns, without any of the
// shortcuts taken for speed. A path rule tries its whole pattern on every
// reading of a path (no test of its literal start, end or run first, no
// readings worked out beforehand, no end or name tests for a list). The
// tests hold ParseRule's rules to these; the sandbox's view is made from
// them, so that a speed bug of the engine cannot open the sandbox too.
func ParseReferenceRule(text string) (*Rule, error) {
	r, err := ParseRule(text)
	if err != nil {
		return nil, err
	}
	r.pat.Full = true
	for _, globs := range [][]*pathglob.Glob{r.pat.Globs, r.pat.Below} {
		for _, g := range globs {
			g.Full = true // (each compiled for this rule alone)
		}
	}
	r.tail, r.need, r.tailEnd, r.tailMsk, r.lead = "", "", 0, 0, 0 // nothing is passed over
	for _, o := range r.spelled {
		o.pat.Full, o.lead = true, 0
	}
	return r, nil
}

// ParseRule parses and compiles one rule. Errors are *RuleError.
func ParseRule(text string) (*Rule, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return nil, ruleErr(text, "Bash(npm test:*)", "the rule is empty")
	}
	if len(t) >= 2 && t[0] == '/' && t[len(t)-1] == '/' {
		return parseRegex(text, t[1:len(t)-1])
	}
	name, arg, hasArg := t, "", false
	if open := strings.IndexByte(t, '('); open >= 0 {
		if t[len(t)-1] != ')' {
			return nil, ruleErr(text, exampleFor(t[:open]), "the argument is not closed with ')' at the end")
		}
		name, arg, hasArg = strings.TrimSpace(t[:open]), t[open+1:len(t)-1], true
		if !command.Balanced(arg) {
			return nil, ruleErr(text, exampleFor(name), "the parentheses are unbalanced")
		}
	} else if strings.ContainsAny(t, ")") {
		return nil, ruleErr(text, "Bash(npm test:*)", "a ')' without '('")
	}
	if name == "" {
		return nil, ruleErr(text, "Bash(npm test:*)", "the tool name is missing")
	}
	if strings.ContainsAny(name, " \t\n()/") {
		return nil, ruleErr(text, "Bash(npm test:*)", "%q is not a tool name", name)
	}
	if strings.HasSuffix(name, "*") {
		if hasArg {
			return nil, ruleErr(text, strings.TrimSuffix(name, "*"), "a tool-name prefix (Tool*) takes no argument")
		}
		return parsePrefix(text, name)
	}
	if tools.IsMCP(name) {
		canon, _ := tools.Canonical(name)
		if hasArg {
			return nil, ruleErr(text, canon, "MCP tools take no argument in rules")
		}
		if strings.Trim(canon[5:], "_") == "" {
			return nil, ruleErr(text, "mcp__github", "%q names no MCP server", name)
		}
		if strings.Count(canon[5:], "__") == 0 {
			// mcp__server: every tool of that server
			return &Rule{Text: canon, Tool: canon, kind: kindPrefix, prefix: strings.ToLower(canon) + "__"}, nil
		}
		return &Rule{Text: canon, Tool: canon, kind: kindTool, key: tools.SameKey(canon)}, nil
	}
	in := tools.Find(name)
	if in == nil {
		msg := fmt.Sprintf("unknown tool %q", name)
		ex := "Bash(npm test:*)"
		if near := closest(name); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
			if in, ok := tools.Lookup(near); ok {
				ex = in.Example
			}
		}
		return nil, &RuleError{Rule: text, Msg: msg, Example: ex}
	}
	info := *in
	r := &Rule{Text: info.Name, Tool: info.Name, kind: kindTool, key: tools.SameKeyLower(in.LowerName()), info: in}
	if !hasArg {
		return r, nil
	}
	if strings.TrimSpace(arg) == "" {
		return nil, ruleErr(text, info.Example, "the argument is empty; leave out the parentheses to name the whole tool")
	}
	r.Arg = arg
	var err error
	switch info.Arg {
	case tools.ArgNone:
		return nil, ruleErr(text, info.Name, "%s takes no argument in rules", info.Name)
	case tools.ArgCommand:
		err = r.compileBash(text)
	case tools.ArgPath:
		err = r.compilePath(text, info)
	case tools.ArgDomain:
		err = r.compileDomain(text, info)
	default:
		r.kind = kindPattern
		r.Text = info.Name + "(" + arg + ")"
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func exampleFor(name string) string {
	if in, ok := tools.Lookup(strings.TrimSpace(name)); ok {
		return in.Example
	}
	return "Bash(npm test:*)"
}

func parseRegex(text, body string) (*Rule, error) {
	if body == "" {
		return nil, ruleErr(text, "/tool:Bash:git (status|diff).*/", "the regex is empty")
	}
	re, err := regexp2.Compile(`\A(?:`+body+`)\z`, regexp2.None)
	if err != nil {
		return nil, ruleErr(text, "/tool:Bash:git (status|diff).*/", "the regex does not compile: %v", err)
	}
	re.MatchTimeout = regexTimeout
	return &Rule{Text: "/" + body + "/", kind: kindRegex, re: re}, nil
}

func parsePrefix(text, name string) (*Rule, error) {
	p := strings.TrimSuffix(name, "*")
	if p == "" || strings.Contains(p, "*") {
		return nil, ruleErr(text, "mcp__github__*", "a tool-name prefix needs some letters before its one trailing '*'")
	}
	canon := p
	if tools.IsMCP(p) {
		canon = "mcp__" + p[5:]
	}
	return &Rule{Text: canon + "*", Tool: canon + "*", kind: kindPrefix, prefix: strings.ToLower(canon)}, nil
}

// compileBash reads a Bash(...) argument: "cmd args" (exact), "cmd args:*"
// (leading words), or a pattern with '*' (wildcard over the command text).
// The words are read as the shell reads them, so quoting in a rule means
// what it means on the command line.
func (r *Rule) compileBash(text string) error {
	arg := strings.Join(strings.Fields(r.Arg), " ")
	r.kind = kindBash
	r.Text = "Bash(" + arg + ")"
	body := arg
	if strings.HasSuffix(body, ":*") {
		r.mode = bashPrefix
		body = strings.TrimSpace(strings.TrimSuffix(body, ":*"))
		if body == "" {
			return ruleErr(text, "Bash", "Bash(:*) names no command; use the bare tool name for every command")
		}
	}
	if r.mode != bashPrefix && strings.Contains(body, "*") {
		r.mode = bashWildcard
		r.wild = body
		r.wildNeed = body[:strings.IndexByte(body, '*')]
		if w, ok := strings.CutSuffix(body, " *"); ok && !strings.Contains(w, "*") {
			r.wildBare = w
			r.wildNeed = w
		}
		return nil
	}
	c := &command.Call{Tool: "Bash", Env: command.Env{Cwd: "/", Home: "/"}}
	command.ParseBash(c, body)
	if c.Err != nil || len(c.Commands) != 1 || len(c.Writes) > 0 {
		return ruleErr(text, "Bash(npm test:*)", "a Bash rule names one simple command (no ;, &&, |, redirections or substitutions)")
	}
	cmd := c.Commands[0]
	if cmd.Dynamic || cmd.Parent() >= 0 {
		return ruleErr(text, "Bash(npm test:*)", "a Bash rule names one simple command (no ;, &&, |, redirections or substitutions)")
	}
	r.words = cmd.Words
	if len(r.words) > 0 {
		r.lead = leadKey(r.words[0])
	}
	r.flags = compileFlags(cmd.Words)
	for _, alt := range command.SpelledOut(cmd.Words) {
		o := &Rule{Text: r.Text, Tool: r.Tool, Arg: r.Arg, kind: kindBash, key: r.key, info: r.info, mode: r.mode, words: alt}
		o.lead, o.flags = leadKey(alt[0]), compileFlags(alt)
		r.spelled = append(r.spelled, o)
		r.spelledLead = r.spelledLead || alt[0] != r.words[0]
	}
	return nil
}

func (r *Rule) compilePath(text string, info tools.Info) error {
	r.kind = kindPath
	p := strings.TrimSpace(r.Arg)
	r.Text = info.Name + "(" + p + ")"
	switch {
	case strings.HasPrefix(p, "//"):
		r.pat.Anchor, p = command.AnchorRoot, "/"+strings.TrimLeft(p, "/")
	case strings.HasPrefix(p, "/"):
		r.pat.Anchor = command.AnchorRoot
	case p == "~" || strings.HasPrefix(p, "~/"):
		r.pat.Anchor, p = command.AnchorHome, strings.TrimPrefix(strings.TrimPrefix(p, "~"), "/")
	default:
		r.pat.Anchor = command.AnchorCwd
		for strings.HasPrefix(p, "./") {
			p = p[2:]
		}
		if p == "." {
			p = ""
		}
		r.pat.AnyBase = p != "" && !strings.Contains(p, "/")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return ruleErr(text, info.Example, "a path pattern may not contain '..'; write the absolute path (/abs/** or ~/x)")
		}
	}
	if r.pat.Anchor == command.AnchorRoot {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	} else {
		p = strings.TrimRight(p, "/")
	}
	r.pat.Lit = p
	if i := strings.IndexAny(p, `*?[{\`); i >= 0 {
		r.pat.Lit = p[:i]
	}
	r.pat.Literal = r.pat.Lit == p && p != "" && p != "/"
	r.last = lastName(r.Arg)
	var err error
	if r.pat.Globs, err = compileGlobs(p); err != nil {
		return ruleErr(text, info.Example, "the path pattern does not compile: %v", err)
	}
	if len(r.pat.Globs) == 1 {
		r.tail, r.need = r.pat.Globs[0].Tail, r.pat.Globs[0].Need
		r.tailEnd, r.tailMsk = command.EndWord(r.tail), endMask(len(r.tail))
	}
	below := p + "/**"
	if p == "" || p == "/" {
		below = p + "**"
	}
	if r.pat.Below, err = compileGlobs(below); err != nil {
		return ruleErr(text, info.Example, "the path pattern does not compile: %v", err)
	}
	return nil
}

func compileGlobs(p string) ([]*pathglob.Glob, error) {
	g, err := pathglob.Compile(p)
	if err != nil {
		return nil, err
	}
	return []*pathglob.Glob{g}, nil
}

// compileDomain reads WebFetch(host), WebFetch(*.domain), Claude Code's
// WebFetch(domain:host), and IP addresses (WebFetch(169.254.169.254),
// WebFetch([::1]), WebFetch(fe80::1)), each brought to the canonical
// spelling normHost gives URLs. In the allow list "host" and "domain:host"
// are that exact host; in the deny and ask lists they also cover every
// subdomain of it (hostaddr.Pattern). "*.host" is the host and every subdomain
// in every list.
func (r *Rule) compileDomain(text string, info tools.Info) error {
	r.kind = kindDomain
	h := strings.TrimSpace(r.Arg)
	h = strings.TrimPrefix(h, "domain:")
	wild := strings.HasPrefix(h, "*.")
	if wild {
		h = h[2:]
	}
	bad := "/:@*? \t[]"
	if hostaddr.IsIPv6Literal(h) {
		bad = "/@*? \t"
	}
	if h == "" || strings.ContainsAny(h, bad) {
		return ruleErr(text, info.Example, "a WebFetch rule names a host (github.com), an IP address (10.0.0.1, [::1]) or a domain with its subdomains (*.example.org), without scheme, port or path")
	}
	host, err := hostaddr.NormHost(h)
	if err != nil {
		return ruleErr(text, info.Example, "the host is not a valid host name or IP address: %v", err)
	}
	r.host = hostaddr.NewPattern(host, wild)
	if r.host.IP && wild {
		return ruleErr(text, info.Example, "*. names the subdomains of a domain name; an IP address has none")
	}
	arg := host
	if wild {
		arg = "*." + host
	}
	r.Text = info.Name + "(" + arg + ")"
	return nil
}

// closest returns the known tool name nearest to name (edit distance at
// most 3), for "did you mean" messages.
func closest(name string) string {
	best, bestD := "", 4
	ln := strings.ToLower(name)
	for _, n := range tools.Names() {
		if d := editDistance(ln, strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
