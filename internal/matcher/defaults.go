package matcher

import (
	"path"
	"path/filepath"
	"strings"
)

// The names of the built-in destructive command rules.
const (
	DenySudo       = "sudo"
	DenyRmRoot     = "rm -rf on /"
	DenyRmSystem   = "rm -rf on a system folder"
	DenyRmHome     = "rm -rf on the home folder"
	DenyDd         = "dd writing to a device"
	DenyMkfs       = "mkfs"
	DenyChmodR     = "recursive chmod/chown on / or ~"
	DenyForcePush  = "force push to main or master"
	DenyDownloadSh = "download piped into a shell"
	DenyForkBomb   = "fork bomb"
	DenyBraces     = "brace expansion too large to check"
)

// systemDirs are the top-level folders whose recursive removal breaks the
// machine (or removes every user's files).
var systemDirs = []string{
	"/bin", "/boot", "/dev", "/etc", "/home", "/lib", "/lib32", "/lib64", "/libx32",
	"/media", "/mnt", "/opt", "/proc", "/root", "/run", "/sbin", "/snap", "/srv",
	"/sys", "/usr", "/var", "/Applications", "/Library", "/System", "/Users", "/Volumes",
}

var interpreters = map[string]bool{
	"python": true, "python2": true, "python3": true, "perl": true, "ruby": true,
	"node": true, "php": true, "source": true, ".": true, "eval": true,
}

// DefaultDeny reports whether the call matches one of the built-in destructive
// command rules, and returns that rule's name ("rm -rf on /", "sudo", ...).
//
// git push counts as forced with -f, --force, --force-with-lease (it still
// rewrites the branch's history) and a +ref refspec; deleting main or master
// (":main", --delete) counts too.
func DefaultDeny(c *Call) (name string, ok bool) {
	if c == nil || c.Tool != "Bash" {
		return "", false
	}
	if c.ForkBomb {
		return DenyForkBomb, true
	}
	for i := range c.Commands {
		cmd := &c.Commands[i]
		for _, w := range cmd.wrappers {
			if w == "sudo" || w == "doas" {
				return DenySudo, true
			}
		}
		for _, words := range candidates(cmd) {
			if n, ok := denyWords(c, words); ok {
				return n, true
			}
		}
		if cmd.braceOverflow && destructiveName(cmd) {
			return DenyBraces, true
		}
		if isDownload(cmd) && feedsShell(c, i) {
			return DenyDownloadSh, true
		}
	}
	return "", false
}

// destructiveName reports whether a command whose braces could not be
// expanded may be one the default rules look at: one of their command
// names, or a command name that is itself a brace expansion.
func destructiveName(cmd *Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		name := path.Base(words[0])
		switch {
		case strings.ContainsAny(words[0], "{}"),
			name == "rm", name == "dd", name == "chmod", name == "chown", name == "chgrp", name == "git",
			strings.HasPrefix(name, "mkfs"), name == "mke2fs", name == "mkswap":
			return true
		}
	}
	return false
}

func candidates(cmd *Command) [][]string {
	out := make([][]string, 0, 2+len(cmd.alts))
	out = append(out, cmd.Words, cmd.Args)
	return append(out, cmd.alts...)
}

func denyWords(c *Call, words []string) (string, bool) {
	if len(words) == 0 {
		return "", false
	}
	name := path.Base(words[0])
	switch {
	case name == "sudo" || name == "doas":
		return DenySudo, true
	case name == "rm":
		return denyRm(c, words[1:])
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
	case name == "mkfs" || strings.HasPrefix(name, "mkfs.") || name == "mke2fs" || name == "mkswap":
		return DenyMkfs, true
	case name == "chmod" || name == "chown" || name == "chgrp":
		flags, targets := splitFlags(words[1:])
		if hasShort(flags, 'R') || hasLong(flags, "--recursive") {
			for _, t := range targets {
				if abs, ok := rmTarget(c, t); ok && (abs == "/" || (c.Env.Home != "" && abs == filepath.Clean(c.Env.Home))) {
					return DenyChmodR, true
				}
			}
		}
	case name == "git":
		return denyGitPush(words[1:])
	}
	return "", false
}

// splitFlags separates options from operands ("--" ends the options).
func splitFlags(args []string) (flags, operands []string) {
	end := false
	for _, a := range args {
		switch {
		case end:
			operands = append(operands, a)
		case a == "--":
			end = true
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
		default:
			operands = append(operands, a)
		}
	}
	return flags, operands
}

func hasShort(flags []string, ch byte) bool {
	for _, f := range flags {
		if !strings.HasPrefix(f, "--") && strings.IndexByte(f[1:], ch) >= 0 {
			return true
		}
	}
	return false
}

func hasLong(flags []string, names ...string) bool {
	for _, f := range flags {
		for _, n := range names {
			if f == n || strings.HasPrefix(f, n+"=") {
				return true
			}
		}
	}
	return false
}

func denyRm(c *Call, args []string) (string, bool) {
	flags, targets := splitFlags(args)
	recursive := hasShort(flags, 'r') || hasShort(flags, 'R') || hasLong(flags, "--recursive")
	force := hasShort(flags, 'f') || hasLong(flags, "--force")
	if !recursive || !force {
		return "", false
	}
	home := ""
	if c.Env.Home != "" {
		home = filepath.Clean(c.Env.Home)
	}
	for _, t := range targets {
		abs, ok := rmTarget(c, t)
		if !ok {
			continue
		}
		switch {
		case abs == "/":
			return DenyRmRoot, true
		case home != "" && abs == home:
			return DenyRmHome, true
		}
		for _, d := range systemDirs {
			if abs == d {
				return DenyRmSystem, true
			}
			if strings.ContainsAny(abs, "*?[") {
				if m, _ := path.Match(abs, d); m {
					return DenyRmSystem, true
				}
			}
		}
	}
	return "", false
}

// rmTarget resolves an operand for the destructive-command rules: ~ and
// $HOME expanded, relative paths joined to the folder the line starts in
// (Env.Shell), and a trailing "/*" or "/." taken as the folder itself.
func rmTarget(c *Call, t string) (string, bool) {
	home := c.Env.Home
	for _, h := range []string{"${HOME}", "$HOME", "\"$HOME\"", "\"${HOME}\""} {
		if rest, ok := strings.CutPrefix(t, h); ok && home != "" {
			t = home + rest
		}
	}
	if t == "" || strings.ContainsAny(t, "$`") {
		return "", false
	}
	switch {
	case t == "~" || strings.HasPrefix(t, "~/"):
		if home == "" {
			return "", false
		}
		t = home + t[1:]
	case !strings.HasPrefix(t, "/"):
		dir := c.startDir() // where the shell is (Env.Shell)
		if dir == "" {
			return "", false
		}
		t = dir + "/" + t
	}
	for {
		trimmed := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(t, "/"), "/*"), "/.")
		if trimmed == t {
			break
		}
		t = trimmed
	}
	if t == "" {
		return "/", true
	}
	return filepath.Clean(t), true
}

func denyGitPush(args []string) (string, bool) {
	// git's own options before the subcommand
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" || args[i] == "--git-dir" || args[i] == "--work-tree" || args[i] == "--namespace" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != "push" {
		return "", false
	}
	flags, operands := splitFlags(args[i+1:])
	force := hasShort(flags, 'f') || hasLong(flags, "--force", "--force-with-lease", "--force-if-includes")
	deleting := hasShort(flags, 'd') || hasLong(flags, "--delete")
	if force && hasLong(flags, "--all", "--mirror", "--branches") {
		return DenyForcePush, true
	}
	if len(operands) < 2 {
		return "", false
	}
	for _, ref := range operands[1:] {
		plus := strings.HasPrefix(ref, "+")
		ref = strings.TrimPrefix(ref, "+")
		src, dst, colon := strings.Cut(ref, ":")
		if !colon {
			dst = src
		}
		dst = strings.TrimPrefix(strings.TrimPrefix(dst, "refs/heads/"), "heads/")
		if dst != "main" && dst != "master" {
			continue
		}
		if force || plus || deleting || (colon && src == "") {
			return DenyForcePush, true
		}
	}
	return "", false
}

func isDownload(cmd *Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) > 0 {
			switch path.Base(words[0]) {
			case "curl", "wget", "fetch", "aria2c", "http", "https", "xh":
				return true
			}
		}
	}
	return false
}

func isShellSink(cmd *Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		n := path.Base(words[0])
		if shells[n] || interpreters[n] || n == "sudo" {
			return true
		}
	}
	return false
}

// feedsShell reports whether command i's output reaches a shell: later in its
// pipeline, or as the script of the command it stands in (sh -c "$(curl ..)",
// bash <(curl ..), eval "$(wget ..)").
func feedsShell(c *Call, i int) bool {
	d := &c.Commands[i]
	for j := range c.Commands {
		e := &c.Commands[j]
		if j != i && e.Pipeline == d.Pipeline && e.Index > d.Index && isShellSink(e) {
			return true
		}
	}
	for p, n := d.parent, 0; p >= 0 && p < len(c.Commands) && n < 16; p, n = c.Commands[p].parent, n+1 {
		if isShellSink(&c.Commands[p]) {
			return true
		}
	}
	return false
}
