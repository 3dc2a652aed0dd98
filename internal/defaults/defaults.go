package defaults

import (
	"iter"
	"path"
	"path/filepath"
	"strings"

	"vibing/internal/command"
)

// The names of the built-in destructive command rules. Each reads after
// "the built-in rule against".
const (
	DenySudo       = "privilege escalation (sudo, doas, pkexec, su)"
	DenyRmRoot     = "rm -rf on /"
	DenyRmSystem   = "rm -rf on or inside a top-level or system folder"
	DenyRmHome     = "rm -rf on the home folder or inside it"
	DenyRmCwd      = "rm -rf on the working folder or a folder above it"
	DenyDd         = "dd writing to a device"
	DenyMkfs       = "mkfs"
	DenyChmodR     = "recursive chmod/chown on /, ~ or a top-level folder"
	DenyChmodWorld = "recursive chmod to world-writable (777, o+w)"
	DenyForcePush  = "force push that may rewrite main or master"
	DenyDownloadSh = "running a downloaded script"
	DenyForkBomb   = "fork bomb"
	DenyBraces     = "brace expansion too large to check"
	DenyUnchecked  = "a command line too large or too deeply nested to check"
)

// isPrivilegedName reports the programs that run a command as another
// user (root): a switch, as the rules ask it of every command.
func isPrivilegedName(name string) bool {
	switch name {
	case "sudo", "sudoedit", "doas", "pkexec", "su", "run0", "runuser", "ksu":
		return true
	}
	return false
}

// interpreters run a script file named among their arguments (or read
// code from their input), besides the shells.
var interpreters = command.Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"python": true, "python2": true, "python3": true, "pypy3": true, "perl": true, "ruby": true,
		"node": true, "nodejs": true, "deno": true, "bun": true, "php": true, "lua": true, "Rscript": true,
		"tclsh": true, "osascript": true, "source": true, ".": true, "eval": true,
	}
}}

func runsScripts(name string) bool { return command.IsShell(name) || interpreters.Get()[name] }

// maxChecks bounds the path checks one call may cost (targets times the
// folders they may resolve from); a call that needs more is refused
// (DenyUnchecked). maxAliasDepth bounds the git shell aliases followed.
const (
	maxChecks     = 1 << 20
	maxAliasDepth = 4
)

// checker is one evaluation of the default rules.
type checker struct {
	c      *command.Call
	b      bounds
	depth  int // git shell aliases followed to get here
	checks int // path checks left
	over   bool
}

// Deny reports whether the call matches one of the built-in destructive
// command rules, and returns that rule's name ("rm -rf on /", ...).
//
// Every simple command of the parsed line is looked at, behind wrappers,
// inside sh -c scripts, substitutions and find -exec; the destructive rules
// come first, privilege escalation (any sudo, doas, pkexec, su, run0,
// runuser, ksu) last, so `sudo rm -rf /` is named for what it removes.
// When the line did not parse (or was too long or too deep to walk), bash may
// still run it: the raw text is then also split conservatively into words
// (rawDeny) and the same rules are tried on every place a command could start.
//
// git push counts as forced with -f, --force, --force-with-lease (it still
// rewrites the branch's history) and a +ref refspec; deleting main or master
// (":main", --delete) counts too, and so do --mirror and a forced push that
// names no branch (it pushes the current one, which may be main).
func Deny(c *command.Call) (name string, ok bool) {
	return defaultDeny(c, 0)
}

func defaultDeny(c *command.Call, depth int) (string, bool) {
	if c == nil || c.Tool != "Bash" {
		return "", false
	}
	if c.ForkBomb {
		return DenyForkBomb, true
	}
	k := &checker{c: c, depth: depth, checks: maxChecks}
	bounded := c.Err != nil || needsBounds(c)
	if bounded {
		k.b = newBounds(c.Env) // folders are looked up only for the commands that need them
	}
	for i := range c.Commands {
		cmd := &c.Commands[i]
		var at place
		if k.b.cwd != "" || k.b.home != "" {
			at = k.placeOf(cmd)
		}
		if n, ok := k.denyLists(at, cmd, bounded); ok {
			return n, true
		}
		if cmd.BraceOverflow && destructiveName(cmd) {
			return DenyBraces, true
		}
		if isDownload(cmd) && (feedsShell(c, i) || runsDownload(c, i)) {
			return DenyDownloadSh, true
		}
		if k.over {
			return DenyUnchecked, true
		}
	}
	for i := range c.Commands {
		if isPrivileged(&c.Commands[i]) {
			return DenySudo, true
		}
	}
	if c.Err != nil {
		return k.rawDeny()
	}
	return "", false
}

// denyLists is denyWords on each word list of cmd; when bounded, rm and
// chmod may be among them, and every list is looked at (each counts its
// path checks).
func (k *checker) denyLists(at place, cmd *command.Command, bounded bool) (string, bool) {
	for _, words := range wordLists(cmd, bounded) {
		if n, ok := k.denyWords(at, words); ok {
			return n, true
		}
	}
	return "", false
}

// needsBounds reports whether some command of c is one whose targets the
// default rules resolve (rm, chmod, chown, chgrp), under any name it may
// run as.
func needsBounds(c *command.Call) bool {
	for i := range c.Commands {
		for _, words := range candidates(&c.Commands[i]) {
			if len(words) == 0 {
				continue
			}
			switch path.Base(words[0]) {
			case "rm", "chmod", "chown", "chgrp":
				return true
			}
			if command.BytesBraceGlob.In(words[0]) {
				return true
			}
		}
	}
	return false
}

// destructiveName reports whether a command whose braces could not be
// expanded may be one the default rules look at: one of their command
// names, or a command name that is itself a brace expansion.
func destructiveName(cmd *command.Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		name := path.Base(words[0])
		if command.BytesBrace.In(words[0]) || ruleCommand(name) || isPrivilegedName(name) {
			return true
		}
	}
	return false
}

// ruleCommand reports whether the destructive rules look at a command of
// this name (denyWords).
func ruleCommand(name string) bool {
	switch name {
	case "rm", "dd", "chmod", "chown", "chgrp", "git", "mke2fs", "mkswap":
		return true
	}
	return strings.HasPrefix(name, "mkfs")
}

// candidates yields the word lists the default rules look at: the words,
// the words behind wrappers, then the further lists (alts), without
// building a slice of them (it is called several times per command).
// The words behind wrappers are left out when there is no wrapper (they
// are the words themselves): for a test of the words alone, the answer is
// the same.
func candidates(cmd *command.Command) iter.Seq2[int, []string] { return wordLists(cmd, false) }

// wordLists is candidates; with all, the words behind wrappers are yielded
// even when they are the words themselves, for a check that counts its
// work (denyWords on rm and chmod spends the call's path checks for each
// list it is given).
func wordLists(cmd *command.Command, all bool) iter.Seq2[int, []string] {
	return func(yield func(int, []string) bool) {
		if !yield(0, cmd.Words) || (all || !cmd.ArgsSame()) && !yield(1, cmd.Args) {
			return
		}
		for i, a := range cmd.More().Alts {
			if !yield(2+i, a) {
				return
			}
		}
	}
}

func isPrivileged(cmd *command.Command) bool {
	for _, w := range cmd.More().Wrappers {
		if isPrivilegedName(w) {
			return true
		}
	}
	for _, words := range candidates(cmd) {
		if len(words) > 0 && isPrivilegedName(path.Base(words[0])) {
			return true
		}
	}
	return false
}

func (k *checker) denyWords(at place, words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	name := path.Base(words[0])
	switch {
	case name == "rm":
		return k.denyRm(at, words[1:])
	case name == "dd":
		for _, a := range words[1:] {
			if v, ok := strings.CutPrefix(a, "of="); ok && strings.HasPrefix(filepath.Clean(v), "/dev/") {
				switch filepath.Clean(v) {
				case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/zero":
					continue
				}
				return DenyDd, true
			}
		}
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap":
		return DenyMkfs, true
	case name == "chmod" || name == "chown" || name == "chgrp":
		return k.denyChmod(at, name, words[1:])
	case name == "git":
		return k.denyGit(words[1:])
	}
	return "", false
}

func hasShort(flags []string, ch byte) bool {
	for _, f := range flags {
		if !strings.HasPrefix(f, "--") && strings.IndexByte(f[1:], ch) >= 0 {
			return true
		}
	}
	return false
}

// longPrefix reports whether the option word a ("--rec", "--force=x") is
// name or an abbreviation of it at least min letters long, as getopt_long
// and git accept unambiguous prefixes of long options.
func longPrefix(a, name string, min int) bool {
	n, ok := strings.CutPrefix(a, "--")
	if !ok {
		return false
	}
	n, _, _ = strings.Cut(n, "=")
	return len(n) >= min && strings.HasPrefix(name, n)
}
