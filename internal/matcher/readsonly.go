package matcher

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
var modeReaders = table[map[string][]string]{make: func() map[string][]string {
	return map[string][]string{
		"cat": nil, "tac": nil, "head": nil, "tail": {"-f", "-F", "--follow"}, "wc": nil, "nl": nil, "rev": nil,
		"grep": nil, "egrep": nil, "fgrep": nil, "rg": {"--pre", "--pre-glob", "--search-zip", "-z"},
		"ls": nil, "dir": nil, "tree": nil, "stat": nil, "file": nil, "du": nil, "pwd": nil, "cd": nil,
		"diff": nil, "cmp": nil, "comm": nil, "md5sum": nil, "sha1sum": nil, "sha256sum": nil, "sha512sum": nil,
		"cksum": nil, "b2sum": nil, "echo": nil, "printf": nil, "true": nil, "test": nil, "[": nil,
		"realpath": nil, "readlink": nil, "basename": nil, "dirname": nil, "which": nil, "od": nil, "hexdump": nil,
		"xxd": nil, "strings": nil, "jq": nil, "column": nil, "cut": nil, "tr": nil, "uniq": nil,
		"sort": {"--compress-program"}, "fold": nil, "fmt": nil, "base64": nil, "paste": nil, "join": nil, "expand": nil,
		"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fls", "-fprintf"},
		"git":  nil,
	}
}}

// modeGitReaders are the git subcommands that pass as a read (no network:
// ls-remote is not among them), and gitRunners the options of git or of
// those subcommands that run a program or change its configuration.
var modeGitReaders = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "ls-files": true, "grep": true,
	"rev-parse": true, "describe": true, "shortlog": true, "ls-tree": true, "cat-file": true, "rev-list": true,
	"reflog": true, "merge-base": true, "version": true,
}

var gitRunners = []string{"-c", "--config-env", "--exec-path", "-O", "--open-files-in-pager", "--ext-diff", "--textconv",
	"--output", "--git-dir", "--work-tree"}

// ReadsOnlyInside reports whether the Bash line c only reads, and only what
// lies inside the working folder: every command is one of modeReaders (a
// reader the engine sees whole, without an option that writes, runs a
// program or follows a file forever), seen through (no word known only at
// run time, no wrapper, no variable set before it), and every word that may
// name a file resolves inside the working folder, as written and resolved.
// Nothing is written, removed or contacted.
func (c *Call) ReadsOnlyInside() bool {
	if c == nil || c.Tool != "Bash" || c.Err != nil || c.braceOverflow || c.dirOverflow || c.ForkBomb ||
		c.unseenCmd != "" || c.unseenArg != "" || len(c.Commands) == 0 {
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
		cmd := &c.Commands[i]
		if !cmd.ReadOnly() || cmd.Dynamic || cmd.dynamicName || cmd.unseen != "" || cmd.denyOnly || cmd.braceOverflow ||
			cmd.dirsFrom != 0 || len(cmd.Args) == 0 || len(cmd.Words) != len(cmd.Args) {
			return false
		}
		r := cmd.more()
		if len(r.wrappers) > 0 || len(r.assigns) > 0 || len(r.codeVars) > 0 || len(r.computed) > 0 {
			return false
		}
		for _, o := range r.outs {
			if o != "/dev/null" {
				return false
			}
		}
		name := cmd.Args[0]
		if strings.ContainsRune(name, '/') {
			return false // a program by path: whatever lies there
		}
		bad, ok := modeReaders.get()[name]
		if !ok {
			return false
		}
		args := cmd.Args[1:]
		if name == "git" {
			sub, _ := gitSubcommand(args)
			if !modeGitReaders[sub] {
				return false
			}
			bad = gitRunners
		}
		for _, a := range args {
			if a == "--" {
				break
			}
			for _, b := range bad {
				if a == b || strings.HasPrefix(a, b+"=") || (len(b) == 2 && b[0] == '-' && b[1] != '-' && strings.HasPrefix(a, b) && !strings.HasPrefix(a, "--")) {
					return false
				}
			}
		}
	}
	if c.args != nil {
		paths := c.argPaths()
		if c.args.globOverflow {
			return false
		}
		for i := range paths {
			p := &paths[i]
			if p.unsure || !inside(p.Abs, c.Env.Cwd) || !inside(p.Real, c.realCwd) {
				return false
			}
		}
	}
	return true
}
