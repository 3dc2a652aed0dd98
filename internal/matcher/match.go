package matcher

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"vibing/internal/command"
	"vibing/internal/tools"
)

// Match reports whether the rule matches the call when it stands in list.
// Allow rules must cover (every simple command, both the path and its symlink
// target); deny and ask rules fire on any part and match when the call or the
// rule cannot be evaluated.
func (r *Rule) Match(c *command.Call, list List) bool {
	return r.match(c, list, false)
}

// OnFiles reports whether the rule is about file paths (Read(...), Edit(...)).
func (r *Rule) OnFiles() bool { return r != nil && r.kind == kindPath }

// OnHosts reports whether the rule is about hosts (WebFetch(...)): in the
// deny and ask lists it also fires on the hosts a Bash line contacts.
func (r *Rule) OnHosts() bool { return r != nil && r.kind == kindDomain }

// ToolInfo is the table entry of the rule's tool, found when the rule was
// compiled; nil for an MCP tool, a prefix and a regex.
func (r *Rule) ToolInfo() *tools.Info {
	if r == nil {
		return nil
	}
	return r.info
}

// ToolKey is the rule's tool as tools.Same compares names (tools.SameKey),
// worked out when the rule was compiled; "" for a regex or a prefix.
func (r *Rule) ToolKey() string {
	if r == nil {
		return ""
	}
	return r.key
}

func (r *Rule) match(c *command.Call, list List, seenOnly bool) bool {
	if r == nil || c == nil {
		return list != AllowList
	}
	if r.kind == kindPath && c.FileViews {
		if list == AllowList {
			if r.cannotEnd(c.Views) {
				return false
			}
		} else if r.cannotName(c.Views) {
			// no name the call's path goes by can match: a literal
			// rule still follows hard links to its file (command.PathPattern.Matches)
			return r.pat.Literal && r.toolApplies(c, list) && r.pat.LinkedBy(c.Path, c)
		}
	}
	switch r.kind {
	case kindRegex:
		return r.matchRegex(c, list, seenOnly)
	case kindPrefix:
		// mcp__server also names a tool called exactly that.
		return strings.HasPrefix(c.LowerTool(), r.prefix) || c.LowerTool()+"__" == r.prefix
	case kindTool:
		return r.toolApplies(c, list)
	}
	if r.kind == kindPath && c.Tool == "Bash" && list != AllowList {
		return r.matchBashFiles(c, list, seenOnly)
	}
	if r.kind == kindDomain && c.Tool == "Bash" {
		return list != AllowList && r.matchBashHosts(c, list)
	}
	if !r.toolApplies(c, list) {
		return false
	}
	if c.Err != nil {
		return list != AllowList
	}
	switch r.kind {
	case kindBash:
		if list == AllowList {
			ok, _ := covers([]*Rule{r}, c, nil)
			return ok
		}
		for i := range c.Commands {
			cmd := &c.Commands[i]
			if cmd.BraceOverflow || !r.leadOther(cmd) && r.denyCommand(cmd) || (!seenOnly && cmd.Unseen() != "") {
				return true
			}
		}
		return false
	case kindPath:
		if command.IsSearch(c.Tool) {
			return r.matchSearch(c, list)
		}
		if c.Path == nil {
			return false
		}
		return r.pat.Matches(c.Path, c, list == AllowList)
	case kindDomain:
		if list == AllowList && c.Scheme != "http" && c.Scheme != "https" {
			return false
		}
		return r.host.Matches(c.Host, list == AllowList)
	case kindPattern:
		return c.Pattern == r.Arg
	}
	return list != AllowList
}

// toolApplies reports whether a rule for r.Tool speaks about c's tool: the
// same tool (Task and Agent are one), or a tool of a family it speaks for
// in list (Speaks), as in Claude Code.
func (r *Rule) toolApplies(c *command.Call, list List) bool {
	if r.Tool == c.Tool || ((r.Tool == "Task" || r.Tool == "Agent") && (c.Tool == "Task" || c.Tool == "Agent")) {
		return true
	}
	if r.kind == kindTool && r.key == c.Key {
		return true // MCP tool names match case-insensitively (a known tool's name is canonical on both sides)
	}
	s := r.Speaks(list)
	return s != 0 && s&familyOf(c) != 0
}

// Speaks is the families of tools besides its own that the rule speaks for
// in list (a call's family: tools.Info.Family). Edit and Write rules, in
// every list, speak for every file-writing tool (Write, Edit, MultiEdit,
// NotebookEdit), and as path rules in the allow list for reading that path
// too (write implies read); Read rules, in every list, for every tool that
// reads a path (NotebookRead, Grep, Glob, LS), and in the deny list for
// changing it. Worked out from the rule alone, so that a rule set cut for
// one tool (session) reads it beside the tool's family without a call.
func (r *Rule) Speaks(list List) tools.Family {
	if r == nil {
		return 0
	}
	switch r.Tool {
	case "Edit", "Write":
		if list == AllowList && r.kind == kindPath {
			return tools.FamilyEdit | tools.FamilyRead
		}
		return tools.FamilyEdit
	case "Read":
		if list == DenyList {
			return tools.FamilyRead | tools.FamilyEdit
		}
		return tools.FamilyRead
	}
	return 0
}

// familyOf is the family of c's tool; a call written out by hand, without
// its tool's facts, has its tool's by name.
func familyOf(c *command.Call) tools.Family {
	if c.Info != nil {
		return c.Info.Family
	}
	return familyNamed(c.Tool)
}

func familyNamed(tool string) tools.Family {
	if in := tools.Find(tool); in != nil {
		return in.Family
	}
	return 0
}

func isEditTool(t string) bool {
	switch t {
	case "Edit", "Write", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

// matchBashFiles fires deny/ask file rules on a Bash line: on the files it
// changes (redirections, tee, rm, mv, sed -i, ...) for Edit/Write rules and
// deny Read rules; on every argument word and input redirection (cat .env,
// grep KEY .env, python3 < .env) for Read rules and deny Edit/Write rules.
// Words only known at run time (cat $F) cannot be checked.
func (r *Rule) matchBashFiles(c *command.Call, list List, seenOnly bool) bool {
	ok, _ := r.bashFileHit(c, list, seenOnly, false)
	return ok
}

// bashFileHit is matchBashFiles; with describe it also says which file
// ("it writes src/x", "it reads ., which holds a file the rule names").
func (r *Rule) bashFileHit(c *command.Call, list List, seenOnly, describe bool) (bool, string) {
	reads := r.Tool == "Read" || r.Tool == "NotebookRead" || (isEditTool(r.Tool) && list == DenyList)
	changes := isEditTool(r.Tool) || (r.Tool == "Read" && list == DenyList)
	if !reads && !changes {
		return false, ""
	}
	if c.Err != nil || c.BraceOverflow || c.DirOverflow {
		return true, "" // a line that cannot be parsed or expanded may touch anything
	}
	if !seenOnly && c.UnseenFor(r.last) != "" {
		return true, "" // a command that cannot be seen through, or a name known at run time, may be any file
	}
	say := func(format string, p *command.Path) string {
		if !describe {
			return ""
		}
		name := p.Raw
		if name == "" {
			name = p.Abs
		}
		return fmt.Sprintf(format, name)
	}
	if changes {
		for i := range c.Modifies {
			m := &c.Modifies[i]
			if m.Inside() && !m.Removes && m.Names == nil && !isEditTool(r.Tool) {
				continue // a Read rule is about what is read: writing new names into a folder reads nothing
			}
			if r.pat.Matches(m, c, list == AllowList) {
				if m.Inside() {
					return true, say("it writes inside %s", m)
				}
				return true, say("it writes %s", m)
			}
		}
	}
	if reads {
		// Read rules look at every word; deny Edit/Write rules at the
		// words of commands that may write what they name
		readRule := r.Tool == "Read" || r.Tool == "NotebookRead"
		paths := c.ArgPaths()
		for i := range paths {
			p := &paths[i]
			if (!readRule && !p.MayWrite) || (readRule && p.Meta) {
				continue
			}
			if p.Tree && readRule && r.pat.AnyBase {
				if r.pat.NamedInTree(p) {
					return true, say("it reads all of %s, which holds a file the rule names", p)
				}
				continue
			}
			if r.pat.Matches(p, c, list == AllowList) {
				if p.Tree {
					return true, say("it reads all of %s, which holds a file the rule names", p)
				}
				return true, say("it names %s", p)
			}
		}
	}
	return false, ""
}

// allowCommand reports whether an allow Bash rule covers one simple command:
// on its words as written, so a wrapper must itself be allowed.
func (r *Rule) allowCommand(cmd *command.Command) bool {
	if cmd.DynamicName {
		return false
	}
	switch r.mode {
	case bashExact:
		return !cmd.Dynamic && wordsEqual(cmd.Words, r.words)
	case bashPrefix:
		return hasWordPrefix(cmd.Words, r.words)
	default:
		return wildMatch(r.wild, cmd.Text) || (r.wildBare != "" && cmd.Text == r.wildBare)
	}
}

// leadOther reports that denyCommand is false for cmd without trying its
// words: the rule's exact or prefix form fixes a first word, and the one
// word cmd is tried as (Command.Lead) is another. The reference rule (pat.Full) tells
// nothing this way (it tries every word list).
func (r *Rule) leadOther(cmd *command.Command) bool {
	if r.pat.Full || r.mode != bashExact && r.mode != bashPrefix || len(r.words) == 0 || r.spelledLead {
		return false
	}
	l := cmd.Lead()
	return l != "" && l != r.words[0]
}

// denyCommand reports whether a deny/ask Bash rule fires on one simple
// command: on its words, on the command behind wrappers, on every suffix
// after a wrapper, each also with the command word's base name; and the
// rule with a program's short names spelled out likewise (spelled).
func (r *Rule) denyCommand(cmd *command.Command) bool {
	if r.denyWords(cmd.Words, cmd) || !cmd.ArgsSame() && r.denyWords(cmd.Args, cmd) {
		return true
	}
	for _, a := range cmd.More().Alts {
		if r.denyWords(a, cmd) {
			return true
		}
	}
	for _, o := range r.spelled {
		if o.denyCommand(cmd) {
			return true // (Bash(npm i:*) on npm install)
		}
	}
	return false
}

func (r *Rule) denyWords(words []string, cmd *command.Command) bool {
	if len(words) == 0 {
		return false
	}
	if r.denyWordsAs(words, words[0], cmd) {
		return true
	}
	if strings.IndexByte(words[0], '/') >= 0 {
		if base := path.Base(words[0]); base != words[0] {
			return r.denyWordsAs(words, base, cmd)
		}
	}
	return false
}

// denyWordsAs matches words with its first word replaced by first. A word
// only known at run time matches any word of the rule: `git push origin
// $B` may push main.
func (r *Rule) denyWordsAs(words []string, first string, cmd *command.Command) bool {
	switch r.mode {
	case bashExact, bashPrefix:
		if first != r.words[0] {
			return false
		}
		if len(words) >= len(r.words) && wordsEqualDyn(words[1:len(r.words)], r.words[1:], cmd) {
			return true
		}
		return r.flags != nil && r.flags.match(words[1:])
	default:
		// both forms need the text to start with wildNeed: looked at on
		// the words, before the text is put together
		if joinedHasPrefix(first, words[1:], r.wildNeed) {
			text := first
			if len(words) > 1 {
				text = first + " " + strings.Join(words[1:], " ")
			}
			if wildMatch(r.wild, text) || (r.wildBare != "" && hasWordPrefixText(text, r.wildBare)) {
				return true
			}
		}
		// a word only known at run time may be what the pattern needs
		if cmd != nil && cmd.More().Dyn != nil && len(words) > 1 {
			lead, _, _ := strings.Cut(r.wild, " ")
			return lead == first && !strings.ContainsRune(lead, '*')
		}
		return false
	}
}

// wordsEqualDyn compares a command's words with a rule's, a word of the
// command only known at run time matching any.
func wordsEqualDyn(a, b []string, cmd *command.Command) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(cmd != nil && cmd.More().Dyn != nil && cmd.IsDyn(a[i])) {
			return false
		}
	}
	return true
}

// joinedHasPrefix reports whether first and rest, joined by single
// spaces, start with p.
func joinedHasPrefix(first string, rest []string, p string) bool {
	s := first
	for i := 0; ; i++ {
		if len(p) <= len(s) {
			return strings.HasPrefix(s, p)
		}
		if !strings.HasPrefix(p, s) || i >= len(rest) {
			return false
		}
		p = p[len(s):]
		if p[0] != ' ' {
			return false
		}
		p, s = p[1:], rest[i]
	}
}

func hasWordPrefixText(text, prefix string) bool {
	return text == prefix || strings.HasPrefix(text, prefix+" ")
}

func wordsEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func hasWordPrefix(words, prefix []string) bool {
	if len(words) < len(prefix) {
		return false
	}
	for i := range prefix {
		if words[i] != prefix[i] {
			return false
		}
	}
	return true
}

// wildMatch matches s against a pattern where '*' stands for any run of
// characters (newlines included) and every other character for itself.
func wildMatch(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// matchRegex evaluates a /regex/ rule on the call's action strings.
func (r *Rule) matchRegex(c *command.Call, list List, seenOnly bool) bool {
	if list == AllowList {
		if c.Err != nil {
			return false
		}
		acts := c.Acts()
		if len(acts) == 0 && c.Tool != "Bash" {
			acts = []string{c.Action()} // a Call not made by Prepare
		}
		if c.Tool == "Bash" {
			if c.ForkBomb || len(c.Commands) == 0 || len(acts) < len(c.Commands) {
				return false
			}
			for i := range c.Commands {
				if c.Commands[i].DynamicName {
					return false
				}
			}
			if len(nonTrivialWrites(c)) > 0 {
				return false
			}
			acts = acts[:len(c.Commands)]
		}
		if len(acts) == 0 {
			return false
		}
		for _, a := range acts {
			if ok, err := r.regexMatch(c, a); err != nil || !ok {
				return false
			}
		}
		return true
	}
	if c.BraceOverflow && c.Tool == "Bash" && strings.Contains(strings.ToLower(r.Text), "bash") {
		return true // braces too large to expand: the commands cannot be checked
	}
	if !seenOnly && c.Tool == "Bash" && c.UnseenCmd != "" && strings.Contains(strings.ToLower(r.Text), "bash") {
		return true // a command the engine cannot see through may be the one the rule names
	}
	for _, a := range c.DenyActions() {
		if r.regexFires(c, a) {
			return true
		}
		if lt := c.LowerTool(); lt != c.Tool && strings.HasPrefix(a, "tool:"+c.Tool) {
			if r.regexFires(c, "tool:"+lt+a[len("tool:")+len(c.Tool):]) {
				return true
			}
		}
	}
	if c.Err != nil && strings.Contains(strings.ToLower(r.Text), c.LowerTool()) {
		// the call cannot be understood and the rule speaks of its tool
		return true
	}
	return false
}

func (r *Rule) regexFires(c *command.Call, a string) bool {
	ok, err := r.regexMatch(c, a)
	return ok || err != nil
}

// errRegexBudget says the call's regex budget is spent.
var errRegexBudget = errors.New("the regex rules took too long on this call")

// regexMatch evaluates the rule's regex on a, charging the time to the
// call's budget; once the budget is spent it returns errRegexBudget without
// evaluating, and callers treat the error as they treat a timeout.
func (r *Rule) regexMatch(c *command.Call, a string) (bool, error) {
	if time.Duration(c.RegexSpent.Load()) >= regexBudget {
		return false, errRegexBudget
	}
	start := time.Now()
	ok, err := r.re.MatchString(a)
	c.RegexSpent.Add(int64(time.Since(start)))
	return ok, err
}

// Covers reports whether every simple command of a Bash call is matched by
// some allow rule in rules (and every file it writes is allowed for Write or
// Edit). A bare Bash rule covers every line, even one that does not parse; a
// pattern never covers a line that does not parse, a command whose name is
// only known at run time, or a fork bomb. For other tools it reports the
// first rule that matches in the allow list. deciding is the rule that
// covered the (first) command.
func Covers(rules []*Rule, c *command.Call) (covered bool, deciding *Rule) {
	return covers(rules, c, nil)
}

func covers(rules []*Rule, c *command.Call, x *AllowIndex) (bool, *Rule) {
	if c == nil {
		return false, nil
	}
	if c.Tool != "Bash" {
		for _, r := range rules {
			if r != nil && r.Match(c, AllowList) {
				return true, r
			}
		}
		return false, nil
	}
	for _, r := range rules {
		if r != nil && (r.kind == kindTool || r.kind == kindPrefix) && r.Match(c, AllowList) {
			return true, r
		}
	}
	if c.Err != nil || c.ForkBomb || len(c.Commands) == 0 {
		return false, nil
	}
	var deciding *Rule
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.DenyOnly() {
			continue // only supposed to run: deny and ask rules look at it
		}
		found := coveredBy(rules, c, i, x)
		if found == nil {
			return false, nil
		}
		if deciding == nil {
			deciding = found
		}
	}
	for _, w := range nonTrivialWrites(c) {
		if !writeAllowed(rules, c, w) {
			return false, nil
		}
	}
	return true, deciding
}

// coveredBy is the first of the allow rules that covers command i of Bash
// line c, or nil (also when a variable set before it is not on the safe list).
func coveredBy(rules []*Rule, c *command.Call, i int, x *AllowIndex) *Rule {
	cmd := &c.Commands[i]
	if !safeAssigns(cmd) {
		return nil
	}
	var lead uint64 // the command's first word as leadKey (0: no first word a rule can tell it by)
	if !cmd.DynamicName && len(cmd.Words) > 0 {
		lead = leadKey(cmd.Words[0])
	}
	for _, r := range x.forLead(rules, lead) {
		if r == nil {
			continue
		}
		if r.kind == kindBash {
			// an exact or prefix rule fixes the first word: another one
			// cannot be covered by it (TestAllowLeadTwin)
			if (r.lead == 0 || lead == 0 || r.lead == lead) && r.allowCommand(cmd) {
				return r
			}
			continue
		}
		if r.kind == kindRegex && !cmd.DynamicName && i < len(c.Acts()) {
			if ok, err := r.regexMatch(c, c.Acts()[i]); ok && err == nil {
				return r
			}
		}
	}
	return nil
}

// leadKey packs the length of w (up to 255) and its first seven bytes
// into one number, never 0 for a word: two words whose keys differ differ.
func leadKey(w string) uint64 {
	k := uint64(min(len(w), 255)) << 56
	for i := 0; i < len(w) && i < 7; i++ {
		k |= uint64(w[i]) << (8 * i)
	}
	return k
}

// safeAssigns reports whether every variable set before a command is on
// the safe list: GIT_EXTERNAL_DIFF, LD_PRELOAD, PATH and the like change
// what an allowed command runs.
func safeAssigns(cmd *command.Command) bool {
	for _, a := range cmd.More().Assigns {
		if !command.SafeEnv.Get()[a] {
			return false
		}
	}
	return true
}

// nonTrivialWrites returns the redirection targets that are files, not
// /dev/null and friends.
func nonTrivialWrites(c *command.Call) []*command.Path {
	var out []*command.Path
	for i := range c.Writes {
		w := &c.Writes[i]
		switch w.Abs {
		case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
			if !w.Unsure {
				continue
			}
		}
		out = append(out, w)
	}
	return out
}

func writeAllowed(rules []*Rule, c *command.Call, w *command.Path) bool {
	if w.Unsure {
		return false
	}
	wc := &command.Call{Tool: "Write", Lower: "write", Env: c.Env, Path: w, RealCwd: c.RealCwd, RealHome: c.RealHome, Detail: w.Abs}
	wc.Actions = []string{wc.Action()}
	for _, r := range rules {
		if r == nil || (r.Tool != "Write" && r.Tool != "Edit") {
			continue
		}
		if r.kind == kindTool {
			return true
		}
		if r.kind == kindPath && r.pat.Matches(w, wc, true) {
			return true
		}
	}
	return false
}

// CwdDir returns the folder below the working directory, with its
// trailing "/", that every path the rule matches lies in, as the rule reads
// a file tool's path (not a Bash line's): the folder part of the literal
// start of a path pattern anchored at the working directory
// (Edit(src/gen/**/*.ts) -> "src/gen/"). It is "" when the rule may match a
// path anywhere else: any other kind of rule, a pattern whose first name
// holds a glob character, an absolute, home or any-depth pattern, and a
// literal path (a hard link to it may stand anywhere).
func (r *Rule) CwdDir() string {
	if r == nil || r.kind != kindPath || r.pat.Anchor != command.AnchorCwd || r.pat.Literal || r.pat.AnyBase {
		return ""
	}
	return r.pat.Lit[:strings.LastIndexByte(r.pat.Lit, '/')+1]
}

// AppliesTo reports whether the rule may match a call of c's tool (not
// Bash, whose lines file and host rules also read) in list: false only
// when the rule speaks of other tools there. It reads the tool's facts
// alone (command.Bare's call of a tool will do).
func (r *Rule) AppliesTo(c *command.Call, list List) bool {
	if r == nil || c.Tool == "Bash" || r.kind == kindRegex || r.kind == kindPrefix {
		return true
	}
	return r.toolApplies(c, list)
}
