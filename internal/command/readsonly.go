package command

import "strings"

// A Bash line that only reads files inside the working folder is, for the
// mode, what a Read of those files is (SPEC §4 step 7): the deny and ask
// Read rules have looked at every word of it already, so in default mode it
// runs without a prompt, as Claude Code's own read-only commands do.
// "Only reads" is decided by a short list of programs the engine sees
// whole, with the options that make one of them write, run a program or
// reach the network refused; anything else still asks.

// modeReaders are the programs whose line may pass as a read; for each,
// the options (exact, or the start of one) that take it out.
var modeReaders = Table[map[string][]string]{Make: func() map[string][]string {
	return map[string][]string{
		"cat": nil, "tac": nil, "head": nil, "tail": {"-f", "-F", "--follow"}, "wc": nil, "nl": nil, "rev": nil,
		"grep": nil, "egrep": nil, "fgrep": nil, "rg": {"--pre", "--pre-glob", "--search-zip", "-z", "--hostname-bin"},
		"ls": nil, "dir": nil, "tree": nil, "stat": nil, "file": nil, "du": nil, "pwd": nil, "cd": nil,
		"diff": nil, "cmp": nil, "comm": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil,
		"cksum": nil, "b2sum": nil, "echo": nil, "printf": nil, "true": nil, "test": nil, "[": nil,
		"realpath": nil, "readlink": nil, "basename": nil, "dirname": nil, "which": nil, "od": nil, "hexdump": nil,
		"xxd": nil, "strings": nil, "jq": nil, "column": nil, "cut": nil, "tr": nil, "uniq": nil,
		"sort": {"--compress-program"}, "fold": nil, "fmt": nil, "base64": nil, "paste": nil, "join": nil, "expand": nil,
		"find":   {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls", "-fprintf"},
		"git":    nil,
		"sed":    nil, // only as sedPrintsOnly allows
		"whoami": nil, "uname": nil, "date": {"-s", "--set"},
	}
}}

// versionFlags are the interpreters and compilers whose version question
// (node --version, python3 -V) is a read: each prints its version and
// exits while parsing its options, before it runs or loads any code. Left
// out on purpose: ruby -v (then runs stdin), and the tools whose start
// reads the project to pick and fetch a toolchain (go, cargo and rustc
// under rustup, yarn, pnpm, npm under corepack).
var versionFlags = map[string][]string{
	"node": {"--version", "-v"}, "nodejs": {"--version", "-v"}, "python": {"--version", "-V"}, "python3": {"--version", "-V"},
	"perl": {"--version", "-v"}, "gcc": {"--version"}, "g++": {"--version"}, "cc": {"--version"}, "clang": {"--version"},
	"make": {"--version"}, "ruby": {"--version"},
}

// versionOnly reports whether args ask a program of versionFlags only for
// its version (python3.12 --version counts as python3).
func versionOnly(args []string) bool {
	if len(args) != 2 || strings.ContainsRune(args[0], '/') {
		return false
	}
	name := args[0]
	if strings.HasPrefix(name, "python3.") && isDigits(name[len("python3."):]) {
		name = "python3"
	}
	for _, f := range versionFlags[name] {
		if args[1] == f {
			return true
		}
	}
	return false
}

// gitContent reports whether git subcommand sub with arguments args prints
// what the repository's files hold and nothing outside it: show, diff, log
// (with -p) and blame, without --no-index (diff of any two files),
// blame's --contents, -S and --ignore-revs-file (which read a file named
// there).
func gitContent(sub string, args []string) bool {
	switch sub {
	case "show", "diff", "log", "blame":
	default:
		return false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if badOption(a, []string{"--no-index", "--contents", "--ignore-revs-file"}) || (sub == "blame" && badOption(a, []string{"-S"})) {
			return false
		}
	}
	return true
}

// modeGitReaders are the git subcommands that pass as a read: none that
// prints what a file holds (show, blame, grep, cat-file: a tracked .env
// that a Read rule denies would be printed from the object store, where no
// path names it), none that reaches the network (ls-remote). log and diff
// pass only with options from gitListing (names, counts, messages).
var modeGitReaders = map[string]bool{
	"status": true, "ls-files": true, "rev-parse": true, "describe": true, "shortlog": true, "ls-tree": true,
	"rev-list": true, "reflog": true, "merge-base": true, "version": true, "log": true, "diff": true,
}

// gitListing are the options log and diff may take here: what they print
// is names, counts and messages, never a file's lines. diff needs one of
// gitDiffSummary (else it prints the changed lines).
var gitListing = map[string]bool{
	"--oneline": true, "--graph": true, "--stat": true, "--shortstat": true, "--numstat": true, "--name-only": true,
	"--name-status": true, "--summary": true, "--decorate": true, "--all": true, "--no-merges": true, "--merges": true,
	"--reverse": true, "--first-parent": true, "--abbrev-commit": true, "--cached": true, "--staged": true,
	"--no-color": true, "--color": true, "--compact-summary": true, "--dirstat": true,
}

var gitListingValue = []string{"--format=", "--pretty=", "--since=", "--until=", "--after=", "--before=", "--author=",
	"--committer=", "--max-count=", "--date=", "--stat=", "--grep=", "-n", "--abbrev="}

var gitDiffSummary = map[string]bool{"--stat": true, "--shortstat": true, "--numstat": true, "--name-only": true,
	"--name-status": true, "--summary": true, "--compact-summary": true, "--dirstat": true}

// gitListingOnly reports whether the arguments of git log or diff ask only
// for names, counts and messages (revisions and paths, no option outside
// gitListing, no REV:path).
func gitListingOnly(sub string, args []string) bool {
	summary := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if (a == "-n" || a == "--max-count") && i+1 < len(args) && isDigits(args[i+1]) {
			i++ // log -n 5: the count as a word of its own
			continue
		}
		switch {
		case strings.ContainsRune(a, ':'):
			return false // REV:path names a file's contents in the object store
		case !strings.HasPrefix(a, "-"):
			continue // a revision or a path (the file rules look at paths)
		case gitListing[a]:
			summary = summary || gitDiffSummary[a]
		default:
			ok := false
			for _, v := range gitListingValue {
				if strings.HasPrefix(a, v) && (v != "-n" || isDigits(a[2:])) {
					ok = true
				}
			}
			if !ok && strings.HasPrefix(a, "-") && isDigits(a[1:]) {
				ok = true // log -5
			}
			if !ok {
				return false
			}
			summary = summary || strings.HasPrefix(a, "--stat=")
		}
	}
	return sub == "log" || summary
}

// gitListsOnly reports whether git branch, tag, remote or stash is asked
// only for its list (with these arguments and no other: a name creates,
// renames or deletes, and stash list takes log's -p).
func gitListsOnly(sub string, args []string) bool {
	switch sub {
	case "branch":
		for _, a := range args {
			switch a {
			case "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "--no-color":
			default:
				return false
			}
		}
		return true
	case "tag":
		return len(args) == 0
	case "remote":
		return len(args) == 0 || (len(args) == 1 && (args[0] == "-v" || args[0] == "--verbose"))
	case "stash":
		return len(args) == 1 && args[0] == "list"
	}
	return false
}

// sedPrintsOnly reports whether sed's arguments are -n, a script that only
// prints a line or a range of lines (1,20p, 5p, $p) and files: no w, r or e
// command, no -i, no script file.
func sedPrintsOnly(args []string) bool {
	if len(args) < 2 || args[0] != "-n" {
		return false
	}
	addr := func(s string) bool { return s == "$" || isDigits(s) }
	script, ok := strings.CutSuffix(args[1], "p")
	if !ok {
		return false
	}
	from, to, two := strings.Cut(script, ",")
	if !addr(from) || (two && !addr(to)) {
		return false
	}
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// gitRunners are the options of git itself that run a program, change its
// configuration or where it looks.
var gitRunners = []string{"-c", "-C", "--config-env", "--exec-path", "--git-dir", "--work-tree", "--namespace", "--super-prefix"}

// badOption reports whether argument a is (or abbreviates: GNU and git
// take any unambiguous start of a long option) one of the options bad.
func badOption(a string, bad []string) bool {
	name := a
	if i := strings.IndexByte(a, '='); i >= 0 {
		name = a[:i]
	}
	for _, b := range bad {
		switch {
		case a == b || name == b:
			return true
		case strings.HasPrefix(b, "--") && strings.HasPrefix(name, "--") && len(name) > 3 && strings.HasPrefix(b, name):
			return true // --compress-prog for --compress-program
		case len(b) == 2 && b[0] == '-' && b[1] != '-' && strings.HasPrefix(a, b) && !strings.HasPrefix(a, "--"):
			return true // -Cdir, -zx
		}
	}
	return false
}

// ReadsOnlyInside reports whether the Bash line c only reads, and only what
// lies inside the working folder: every command is one of modeReaders (a
// reader the engine sees whole, without an option that writes, runs a
// program or follows a file forever), seen through (no word known only at
// run time, no wrapper, no variable set before it), and every word that may
// name a file resolves inside the working folder, as written and resolved.
// Nothing is written, removed or contacted.
//
// git show, diff (its lines), log -p and blame print what files in the
// repository hold, including earlier versions no path names: they pass only
// when repo (evaluated only then) says no Read deny or ask rule names a file
// there; a nil repo says it may not.
func (c *Call) ReadsOnlyInside(repo RepoCheck) bool {
	if !c.SeenWhole() {
		return false
	}
	for _, w := range [][]Path{c.Modifies, c.Writes} {
		for i := range w {
			if w[i].Abs != "/dev/null" || w[i].Real != "/dev/null" || w[i].inside {
				return false // (2>/dev/null writes nothing)
			}
		}
	}
	for i := range c.Commands {
		if !c.Commands[i].ModeRead(repo) {
			return false
		}
	}
	return c.WordsInside()
}

// RepoCheck reports whether the repository around the working folder may
// be read whole (no Read deny or ask rule names a file in it); the engine
// gives it, the analysis calls it only for a git command that prints
// files' contents.
type RepoCheck func() bool

// seenWhole reports whether Bash line c parsed and the engine sees through
// all of it: no fork bomb, no overflow, nothing it cannot see.
func (c *Call) SeenWhole() bool {
	return c != nil && c.Tool == "Bash" && c.Err == nil && !c.BraceOverflow && !c.DirOverflow && !c.ForkBomb &&
		c.UnseenCmd == "" && c.unseenArg == "" && len(c.Commands) > 0
}

// wordsInside reports whether every word of c that may name a file resolves
// inside the working folder, as written and resolved.
func (c *Call) WordsInside() bool {
	if c.args == nil {
		return true
	}
	paths := c.ArgPaths()
	if c.args.globOverflow {
		return false
	}
	for i := range paths {
		p := &paths[i]
		if p.Unsure || !Inside(p.Abs, c.Env.Cwd) || !Inside(p.Real, c.RealCwd) {
			return false
		}
	}
	return true
}

// modeRead reports whether command cmd is one of modeReaders, seen whole,
// without an option that writes, runs a program or follows a file forever,
// and writes nothing but /dev/null.
func (cmd *Command) ModeRead(repo RepoCheck) bool {
	if !(cmd.ReadOnly() || versionOnly(cmd.Args)) || cmd.Dynamic || cmd.DynamicName || cmd.unseen != "" || cmd.denyOnly || cmd.BraceOverflow ||
		cmd.DirsFrom != 0 || len(cmd.Args) == 0 || len(cmd.Words) != len(cmd.Args) {
		return false
	}
	r := cmd.More()
	if len(r.Wrappers) > 0 || len(r.Assigns) > 0 || len(r.codeVars) > 0 || len(r.computed) > 0 {
		return false
	}
	for _, o := range r.Outs {
		if o != "/dev/null" {
			return false
		}
	}
	name := cmd.Args[0]
	if strings.ContainsRune(name, '/') {
		return false // a program by path: whatever lies there
	}
	if versionOnly(cmd.Args) {
		return true
	}
	bad, ok := modeReaders.Get()[name]
	if !ok {
		return false
	}
	args := cmd.Args[1:]
	if name == "sed" && !sedPrintsOnly(args) {
		return false
	}
	if name == "git" {
		sub, rest := gitSubcommand(args)
		for _, a := range args[:len(args)-len(rest)] {
			if badOption(a, gitRunners) {
				return false
			}
		}
		listing := (modeGitReaders[sub] || gitListsOnly(sub, rest)) && ((sub != "log" && sub != "diff") || gitListingOnly(sub, rest))
		if !listing && !(gitContent(sub, rest) && repo != nil && repo()) {
			return false
		}
		args = rest
		bad = []string{"--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager"}
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if badOption(a, bad) {
			return false
		}
	}
	return true
}
