package defaults

import (
	"path"
	"strings"

	"vibing/internal/command"
)

// maxAliasExpansions bounds the git aliases expanded for one command.
const maxAliasExpansions = 8

// gitLine is what git's own options on the line say about a push.
type gitLine struct {
	aliases  map[string]string // alias.NAME=VALUE given with -c; "" = a value the line does not show
	mirror   bool              // -c remote.X.mirror=true
	refspecs []string          // -c remote.X.push=REFSPEC
}

// denyGit looks at git's own options and subcommand: -c alias.NAME=VALUE
// defines an alias for this run, and the subcommand is read as its
// expansion — `git -c alias.p=push p -f main` is a force push, and an alias
// starting with "!" is a shell command, checked as a line of its own (with
// the words after it appended, as git does). An alias whose value the line
// does not show (--config-env) is taken to be push.
func (k *checker) denyGit(args []string) (string, bool) {
	var g gitLine
	for n := 0; ; n++ {
		i := 0
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			a := args[i]
			switch {
			case a == "-c" || a == "--config-env":
				if i+1 < len(args) {
					g.config(args[i+1], a == "--config-env")
				}
				i++
			case strings.HasPrefix(a, "--config-env="):
				g.config(strings.TrimPrefix(a, "--config-env="), true)
			case strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
				g.config(a[2:], false)
			case a == "-C" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
				a == "--super-prefix" || a == "--attr-source" || a == "--list-cmds":
				i++
			}
			i++
		}
		if i >= len(args) {
			return "", false
		}
		sub, rest := args[i], args[i+1:]
		v, isAlias := g.aliases[strings.ToLower(sub)]
		switch {
		case !isAlias || n >= maxAliasExpansions:
			if sub == "push" || sub == "send-pack" {
				return g.denyPush(rest)
			}
			return "", false
		case v == "":
			return g.denyPush(rest)
		case strings.HasPrefix(v, "!"):
			return k.shellAlias(v[1:], rest)
		}
		args = append(strings.Fields(strings.NewReplacer(`"`, "", `'`, "").Replace(v)), rest...)
	}
}

// config records one -c KEY=VALUE (or --config-env KEY=ENVVAR: the value
// is not on the line).
func (g *gitLine) config(kv string, fromEnv bool) {
	key, val, _ := strings.Cut(kv, "=")
	key = strings.ToLower(key)
	if fromEnv {
		val = ""
	}
	switch {
	case strings.HasPrefix(key, "alias."):
		if g.aliases == nil {
			g.aliases = map[string]string{}
		}
		g.aliases[strings.TrimPrefix(key, "alias.")] = val
	case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".mirror"):
		g.mirror = g.mirror || fromEnv || !isFalse(val)
	case strings.HasPrefix(key, "remote.") && strings.HasSuffix(key, ".push"):
		if fromEnv {
			val = "+*"
		}
		g.refspecs = append(g.refspecs, val)
	}
}

func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0":
		return true
	}
	return false
}

// shellAlias checks the shell command of a "!" alias, run with the words
// after the alias appended.
func (k *checker) shellAlias(script string, rest []string) (string, bool) {
	if k.depth >= maxAliasDepth {
		return DenyUnchecked, true
	}
	var b strings.Builder
	b.WriteString(script)
	for _, a := range rest {
		b.WriteByte(' ')
		b.WriteString(command.QuoteWord(a))
	}
	sub := &command.Call{Tool: "Bash", Env: k.c.Env, Command: b.String()}
	command.ParseBash(sub, sub.Command)
	return defaultDeny(sub, k.depth+1)
}

// denyPush refuses a push that may rewrite or delete main or master:
// forced (-f, --force, --force-with-lease, --force-if-includes and their
// abbreviations, or a +refspec) onto main, master, HEAD, @ or a pattern
// matching them; deleting them (--delete, :main, --prune with a pattern);
// --mirror; a forced --all or --branches; and a forced push that names no
// branch, which pushes the current one. Every operand is read as a
// refspec, the remote's too, as --repo may have taken its place.
func (g *gitLine) denyPush(args []string) (string, bool) {
	flags, ops := command.SplitFlags(args)
	force, deleting := hasShort(flags, 'f'), hasShort(flags, 'd')
	all, tags, prune, mirror := false, false, false, g.mirror
	for _, f := range flags {
		if !strings.HasPrefix(f, "--") || strings.HasPrefix(f, "--no-") {
			continue
		}
		force = force || longPrefix(f, "force", 1) || longPrefix(f, "force-with-lease", 1) || longPrefix(f, "force-if-includes", 1)
		deleting = deleting || longPrefix(f, "delete", 1)
		mirror = mirror || longPrefix(f, "mirror", 1)
		all = all || longPrefix(f, "all", 1) || longPrefix(f, "branches", 1)
		tags = tags || longPrefix(f, "tags", 1)
		prune = prune || longPrefix(f, "prune", 1)
	}
	switch {
	case mirror, force && all:
		return DenyForcePush, true
	case force && len(ops) <= 1 && !tags && len(g.refspecs) == 0:
		return DenyForcePush, true
	}
	for _, ref := range append(ops, g.refspecs...) {
		plus := strings.HasPrefix(ref, "+")
		ref = strings.TrimPrefix(ref, "+")
		src, dst, colon := strings.Cut(ref, ":")
		if !colon {
			dst = src
		}
		dst = strings.TrimPrefix(strings.TrimPrefix(dst, "refs/heads/"), "heads/")
		pattern := strings.Contains(dst, "*")
		current := dst == "HEAD" || dst == "@"
		if !namesMain(dst) && !current {
			continue
		}
		if current && !(force || plus) {
			continue
		}
		if force || plus || deleting || (colon && src == "") || (prune && pattern) {
			return DenyForcePush, true
		}
	}
	return "", false
}

func namesMain(ref string) bool {
	for _, b := range []string{"main", "master"} {
		if ok, err := path.Match(ref, b); ok || err != nil {
			return true
		}
	}
	return false
}
