package command

import (
	"sort"
	"strings"
)

// Programs' own short names for their commands: npm runs `npm pub` as
// `npm publish` (any unique start of a command or alias, and a table of
// aliases), cargo runs `cargo r` as `cargo run`, kubectl takes `po` for
// `pods` (kubectl.go). A deny or ask rule written for the full name
// (Bash(npm publish:*)) must meet the short one, so the command is also
// tried with its subcommand spelled out; a rule written with the short name
// (Bash(npm i:*)) is spelled out the same way (SpelledOut), so it meets
// the full one.

// SpelledOut returns words, a simple command, once for each reading with a
// program's short names spelled out (npm i is npm install, kubectl delete
// po is kubectl delete pod), as the command's further readings
// (Command.More().Alts) carry them; nil when there is none.
func SpelledOut(words []string) [][]string { return subcommandAlts(words) }

// npmCommands and npmAliases are npm's command names and aliases (npm 11).
var npmCommands = []string{
	"access", "adduser", "approve-scripts", "audit", "bugs", "cache", "ci", "completion", "config", "dedupe",
	"deny-scripts", "deprecate", "diff", "dist-tag", "docs", "doctor", "edit", "exec", "explain", "explore",
	"find-dupes", "fund", "get", "help", "help-search", "init", "install", "install-ci-test", "install-scripts",
	"install-test", "link", "ll", "login", "logout", "ls", "org", "outdated", "owner", "pack", "ping", "pkg",
	"prefix", "profile", "prune", "publish", "query", "rebuild", "repo", "restart", "root", "run", "sbom",
	"search", "set", "shrinkwrap", "stage", "star", "stars", "start", "stop", "team", "test", "token", "trust",
	"undeprecate", "uninstall", "unpublish", "unstar", "update", "version", "view", "whoami",
}

var npmAliases = map[string]string{
	"author": "owner", "home": "docs", "issues": "bugs", "info": "view", "show": "view", "find": "search",
	"add": "install", "unlink": "uninstall", "remove": "uninstall", "rm": "uninstall", "r": "uninstall",
	"un": "uninstall", "rb": "rebuild", "list": "ls", "ln": "link", "create": "init", "i": "install",
	"it": "install-test", "cit": "install-ci-test", "u": "update", "up": "update", "c": "config", "s": "search",
	"se": "search", "tst": "test", "t": "test", "ddp": "dedupe", "v": "view", "run-script": "run",
	"clean-install": "ci", "clean-install-test": "install-ci-test", "x": "exec", "why": "explain", "la": "ll",
	"verison": "version", "ic": "ci", "innit": "init", "in": "install", "ins": "install", "inst": "install",
	"insta": "install", "instal": "install", "isnt": "install", "isnta": "install", "isntal": "install",
	"isntall": "install", "install-clean": "ci", "isntall-clean": "ci", "hlep": "help", "dist-tags": "dist-tag",
	"upgrade": "update", "udpate": "update", "rum": "run", "sit": "install-ci-test", "urn": "run", "ogr": "org",
	"add-user": "adduser",
}

// npmRunsFirst names the command an npm command runs before its own:
// install-test is install then test, install-ci-test is ci then test.
var npmRunsFirst = map[string]string{"install-test": "install", "install-ci-test": "ci"}

// npmNames are the commands and aliases, sorted, for the unique-start test.
var npmNames = Table[[]string]{Make: func() []string {
	out := append([]string(nil), npmCommands...)
	for a := range npmAliases {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}}

// npmCommandSet is npmCommands as a set.
var npmCommandSet = Table[map[string]bool]{Make: func() map[string]bool {
	m := make(map[string]bool, len(npmCommands))
	for _, c := range npmCommands {
		m[c] = true
	}
	return m
}}

// npmCommand returns the command npm runs for word, and whether word
// names one.
func npmCommand(word string) (string, bool) {
	if word == "" {
		return "", false
	}
	if strings.ToLower(word) != word { // installTest is install-test
		var b strings.Builder
		for _, r := range word {
			if r >= 'A' && r <= 'Z' {
				b.WriteByte('-')
				r += 'a' - 'A'
			}
			b.WriteRune(r)
		}
		word = b.String()
	}
	if npmCommandSet.Get()[word] {
		return word, true
	}
	if a, ok := npmAliases[word]; ok {
		return a, true
	}
	names := npmNames.Get()
	i := sort.SearchStrings(names, word)
	// a unique start of a command or an alias
	if i >= len(names) || !strings.HasPrefix(names[i], word) || (i+1 < len(names) && strings.HasPrefix(names[i+1], word)) {
		return "", false
	}
	full := names[i]
	for n := 0; n < 4; n++ {
		a, ok := npmAliases[full]
		if !ok {
			break
		}
		full = a
	}
	return full, true
}

// cargoAliases are cargo's built-in short names.
var cargoAliases = map[string]string{"b": "build", "c": "check", "d": "doc", "n": "new", "r": "run", "t": "test", "rm": "remove"}

// subcommandAlts returns args with the program's subcommand spelled out in
// full, once for each word that may be it (an option's value cannot be
// told from the subcommand: npm --tag x pub), when the line gives a short
// name.
func subcommandAlts(args []string) [][]string {
	if len(args) < 2 {
		return nil
	}
	name := programName(args[0])
	switch name {
	case "npm", "cargo":
	case "kubectl":
		return kubectlAlts(args) // (its resource types: kubectl.go)
	default:
		return programAlts(name, args) // (aliases.go)
	}
	var out [][]string
	for i := 1; i < len(args) && len(out) < 4; i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") {
			continue
		}
		var full string
		switch name {
		case "npm":
			full, _ = npmCommand(w)
		case "cargo":
			full = cargoAliases[w]
		}
		if also := npmRunsFirst[full]; name == "npm" && also != "" {
			alt := append([]string(nil), args...)
			alt[i] = also // npm it installs, then tests: a rule for install meets it
			out = append(out, alt)
		}
		if full != "" && full != w {
			alt := append([]string(nil), args...)
			alt[i] = full
			out = append(out, alt)
		}
		if full != "" && name == "npm" && i+1 < len(args) {
			if sub := npmNested[full][args[i+1]]; sub != "" {
				alt := append([]string(nil), args...)
				alt[i], alt[i+1] = full, sub // npm dist-tag del is npm dist-tag rm
				out = append(out, alt)
			}
		}
		if full == w {
			return out // the subcommand, spelled out: what follows is its own
		}
	}
	return out
}

// npmNested are the other names npm's commands take for their own
// subcommands (npm cache clear is npm cache clean).
var npmNested = map[string]map[string]string{
	"dist-tag": {"r": "rm", "del": "rm", "remove": "rm"},
	"cache":    {"clear": "clean", "rm": "clean"},
}
