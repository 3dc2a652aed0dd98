package matcher

import (
	"path"
	"strings"

	"vibing/internal/command"
)

// Deny and ask Bash rules compare options by meaning, not by spelling:
// Bash(rm -rf) also fires on `rm -r -f x`, `rm -fr x`, `rm x -Rf` and
// `rm --recursive --force x`. Both sides have their short-option clusters
// split (-rf = -r -f), long options map to their short form where the
// command is known (longSynonyms), a long option stands for every long
// option it begins (abbreviates), and the rule's options must all appear
// in the command, in any order; the rule's other words must appear among
// the command's other words in the same order (so `git -C . push` still
// carries `push`). Allow rules never use this: they match the words as
// written.
//
// Abbreviations: GNU getopt_long, git's option parser and Python's
// argparse take any unambiguous start of a long option for it (git reset
// --har is --hard), and a program that takes none refuses the word, so
// in deny and ask `--har` stands for `--hard` whatever the program. The
// cost falls on the safe side: a shorter option whose whole name begins a
// denied one (--save for a rule's --save-dev) fires the rule too.

// longOpt is one spelling of an option for a known command: the long name
// (or a short letter such as "-R") and the option it means; a long name's
// abbreviations mean it too (abbreviates).
type longOpt struct {
	name  string // --recursive, -R
	canon string // -r
}

// longSynonyms lists, for the usual destructive commands, the spellings that
// mean the same option. Kept short on purpose: a command not listed here
// compares its options as written (clusters still split).
var longSynonyms = command.Table[map[string][]longOpt]{Make: func() map[string][]longOpt {
	force := []longOpt{{name: "--force", canon: "-f"}}
	m := map[string][]longOpt{
		"rm": {
			{name: "-R", canon: "-r"},
			{name: "--recursive", canon: "-r"},
			{name: "--force", canon: "-f"},
		},
		"chmod": {{name: "--recursive", canon: "-R"}},
		"chown": {{name: "--recursive", canon: "-R"}},
		"chgrp": {{name: "--recursive", canon: "-R"}},
		"git push": {
			{name: "--force", canon: "-f"},
			{name: "--force-with-lease", canon: "-f"}, // it still rewrites the remote branch
			{name: "--delete", canon: "-d"},
		},
		"git clean":            force,
		"git tag":              {{name: "--delete", canon: "-d"}, {name: "--force", canon: "-f"}},
		"git switch":           {{name: "--force", canon: "-f"}, {name: "--discard-changes", canon: "-f"}},
		"git checkout":         force,
		"git restore":          {{name: "--staged", canon: "-S"}, {name: "--worktree", canon: "-W"}},
		"git rm":               force,
		"git worktree remove":  force,
		"git submodule deinit": force,
		"git fetch":            {{name: "--prune", canon: "-p"}},
		"git rebase":           {{name: "--interactive", canon: "-i"}},
		"git commit":           {{name: "--no-verify", canon: "-n"}},
		"git add":              {{name: "--all", canon: "-A"}},
		"docker compose down":  {{name: "--volumes", canon: "-v"}},
		"docker compose rm":    {{name: "--force", canon: "-f"}, {name: "--volumes", canon: "-v"}},
		"docker rm":            {{name: "--force", canon: "-f"}, {name: "--volumes", canon: "-v"}, {name: "--link", canon: "-l"}},
		"docker rmi":           force,
		"kubectl delete": {
			{name: "--all-namespaces", canon: "-A"},
			{name: "--filename", canon: "-f"},
			{name: "--selector", canon: "-l"},
		},
		"helm upgrade":   {{name: "--install", canon: "-i"}},
		"npm install":    {{name: "--global", canon: "-g"}, {name: "--location=global", canon: "-g"}},
		"npm uninstall":  {{name: "--global", canon: "-g"}, {name: "--location=global", canon: "-g"}},
		"npm publish":    force,
		"npm unpublish":  force,
		"pnpm remove":    {{name: "--global", canon: "-g"}},
		"pnpm add":       {{name: "--global", canon: "-g"}},
		"cargo owner":    {{name: "--remove", canon: "-r"}},
		"cargo install":  force,
		"pip uninstall":  {{name: "--yes", canon: "-y"}},
		"pip install":    {{name: "--upgrade", canon: "-U"}, {name: "--editable", canon: "-e"}},
		"gh pr merge":    {{name: "--delete-branch", canon: "-d"}},
		"gh api":         {{name: "--method", canon: "-X"}},
		"psql":           {{name: "--command", canon: "-c"}},
		"mysql":          {{name: "--execute", canon: "-e"}},
		"brew uninstall": force,
		"rsync": {
			// each says when to delete, and implies --delete (rsync(1))
			{name: "--delete-before", canon: "--delete"},
			{name: "--delete-during", canon: "--delete"},
			{name: "--delete-delay", canon: "--delete"},
			{name: "--delete-after", canon: "--delete"},
			{name: "--delete-excluded", canon: "--delete"},
		},
		"git branch": {
			{name: "--delete", canon: "-d"},
			{name: "--force", canon: "-f"},
			{name: "--move", canon: "-m"},
			{name: "--copy", canon: "-c"},
		},
	}
	for _, prune := range []string{"system", "image", "volume", "container", "network", "builder", "buildx"} {
		m["docker "+prune+" prune"] = []longOpt{{name: "--all", canon: "-a"}, {name: "--force", canon: "-f"}}
	}
	m["apt-get remove"] = []longOpt{{name: "--yes", canon: "-y"}, {name: "--assume-yes", canon: "-y"}}
	m["apt-get install"], m["apt-get autoremove"] = m["apt-get remove"], m["apt-get remove"]
	for k, v := range m {
		if rest, ok := strings.CutPrefix(k, "docker "); ok {
			m["podman "+rest] = v // (podman takes docker's commands and options)
		}
	}
	return m
}}

// synonymsOf is the synonym table's entry for a rule's command: the one
// of its program and first two other words (docker compose down), else
// its program and first other word (git push), else its program's.
func synonymsOf(prog string, plain []string) []longOpt {
	t := longSynonyms.Get()
	for n := min(2, len(plain)); n > 0; n-- {
		if syn, ok := t[prog+" "+strings.Join(plain[:n], " ")]; ok {
			return syn
		}
	}
	if prog == "git" && len(plain) > 0 {
		return nil // (a git subcommand's options are its own)
	}
	return t[prog]
}

// flagSpec is a deny/ask rule's words split into options and other words.
type flagSpec struct {
	flags []string // canonical options (-r, -f, --hard), no duplicates
	plain []string // the other words after the command name, in order
	syn   []longOpt
}

// compileFlags builds the flag-aware form of a Bash rule's words, or nil
// when the rule names only a command.
func compileFlags(words []string) *flagSpec {
	if len(words) < 2 {
		return nil
	}
	fs := &flagSpec{}
	plain := splitPlain(words[1:])
	fs.syn = synonymsOf(path.Base(words[0]), plain)
	end := false
	for _, w := range words[1:] {
		switch {
		case end:
			fs.plain = append(fs.plain, w)
		case w == "--":
			end = true
		case command.IsFlagWord(w):
			eachFlag(w, fs.syn, func(f string) {
				for _, have := range fs.flags {
					if have == f {
						return
					}
				}
				fs.flags = append(fs.flags, f)
			})
		default:
			fs.plain = append(fs.plain, w)
		}
	}
	return fs
}

func splitPlain(words []string) []string {
	var out []string
	end := false
	for _, w := range words {
		switch {
		case end:
			out = append(out, w)
		case w == "--":
			end = true
		case !command.IsFlagWord(w):
			out = append(out, w)
		}
	}
	return out
}

// eachFlag calls fn with every canonical option an option word stands for
// (-rf gives -r and -f).
func eachFlag(w string, syn []longOpt, fn func(string)) {
	if strings.HasPrefix(w, "--") {
		fn(canonLong(w, syn))
		return
	}
	for i := 1; i < len(w); i++ {
		fn(shortCanon(w[i], syn))
	}
}

// canonLong maps a long option (possibly abbreviated, possibly --opt=value)
// to its canonical form.
func canonLong(w string, syn []longOpt) string {
	name := w
	if eq := strings.IndexByte(w, '='); eq >= 0 {
		name = w[:eq]
	}
	for _, s := range syn {
		if strings.HasPrefix(s.name, "--") && (abbreviates(name, s.name) || abbreviates(w, s.name)) {
			return s.canon
		}
	}
	return w
}

// abbreviates reports whether the long option word w (--name or
// --name=value) is the long option f or an abbreviation of it: a start of
// its name of at least one letter, with the same value where f gives one.
func abbreviates(w, f string) bool {
	wn, wv, wEq := strings.Cut(w, "=")
	fn, fv, fEq := strings.Cut(f, "=")
	if len(wn) < 3 || !strings.HasPrefix(fn, wn) {
		return false
	}
	return !fEq || wEq && wv == fv
}

// match reports whether the command's words after its name (args) carry
// every option of the rule and the rule's other words in order.
func (fs *flagSpec) match(args []string) bool {
	j := 0
	end := false
	for _, w := range args {
		if j == len(fs.plain) {
			break
		}
		switch {
		case !end && w == "--":
			end = true
		case !end && command.IsFlagWord(w):
			// --name=value is --name value: its value may be the word
			// (Bash(npm publish --access public:*) on --access=public)
			if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "--") && v == fs.plain[j] {
				j++
			}
		case w == fs.plain[j]:
			j++
		}
	}
	if j < len(fs.plain) {
		return false
	}
	for _, f := range fs.flags {
		if !carriesFlag(args, f, fs.syn) {
			return false
		}
	}
	return true
}

// carriesFlag reports whether an option word before "--" in args stands
// for f. It does not allocate: it runs for every deny rule whose command
// name matches.
func carriesFlag(args []string, f string, syn []longOpt) bool {
	for i, w := range args {
		if w == "--" {
			return false
		}
		if !command.IsFlagWord(w) {
			continue
		}
		if strings.HasPrefix(w, "--") {
			if c := canonLong(w, syn); c == f || strings.HasPrefix(f, "--") && abbreviates(c, f) {
				return true
			}
			// --name value is --name=value (Bash(kubectl scale --replicas=0:*)
			// on --replicas 0)
			if fn, fv, ok := strings.Cut(f, "="); ok && i+1 < len(args) && args[i+1] == fv &&
				!strings.Contains(w, "=") && abbreviates(canonLong(w, syn), fn) {
				return true
			}
			continue
		}
		for i := 1; i < len(w); i++ {
			if shortCanon(w[i], syn) == f {
				return true
			}
		}
	}
	return false
}

// shortCanon is the canonical form of the short option -c.
func shortCanon(c byte, syn []longOpt) string {
	for _, s := range syn {
		if len(s.name) == 2 && s.name[1] == c {
			return s.canon
		}
	}
	return shortNames.Get()[c]
}

// shortNames holds "-c" for every byte, so short options compare without
// allocating.
var shortNames = command.Table[*[256]string]{Make: func() *[256]string {
	var t [256]string
	for i := range t {
		t[i] = "-" + string([]byte{byte(i)})
	}
	return &t
}}
