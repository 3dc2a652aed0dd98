package command

import "strings"

// More programs' other names for one command (abbrev.go says why): docker's
// management commands (`docker container remove x` is `docker rm x`,
// `docker image ls` is `docker images`), `docker-compose` is `docker
// compose`, helm's, pnpm's and Homebrew's aliases (`helm del` is `helm
// uninstall`, `brew rm` is `brew uninstall`), `apt` is `apt-get` and
// `apt-get purge x` is `apt-get remove --purge x`, pip
// under another name (`pip3`, `python3 -m pip`), `terraform apply
// -destroy`, which is `terraform destroy`, `git branch -D`, which is
// `git branch -d -f` (-M and -C likewise), and a git push whose refspec
// forces (+main) or deletes (:feature), which is a push --force or
// --delete. Each is read one way: the
// spelling a rule is most likely written in.

// spellsOut reports whether subcommandAlts knows other names of the
// program's commands.
func spellsOut(name string) bool {
	switch name {
	case "npm", "cargo", "kubectl", "docker", "podman", "docker-compose", "helm", "pnpm", "terraform", "tofu", "git",
		"brew", "apt", "apt-get", "bun", "gh", "go", "redis-cli":
		return true
	}
	return isPip(name) || isPython(name)
}

// isPip reports pip under a versioned name (pip3, pip3.12).
func isPip(name string) bool {
	return strings.HasPrefix(name, "pip") && strings.Trim(name[3:], "0123456789.") == ""
}

// isPython reports a Python interpreter's name (python, python3, python3.12).
func isPython(name string) bool {
	return strings.HasPrefix(name, "python") && strings.Trim(name[6:], "0123456789.") == ""
}

// dockerVerbs maps `docker container X` and `docker image X` to the
// top-level command that does the same (docker's own shorthands).
var dockerVerbs = map[string]map[string]string{
	"container": {"rm": "rm", "remove": "rm", "ls": "ps", "list": "ps", "ps": "ps", "run": "run", "exec": "exec",
		"kill": "kill", "stop": "stop", "start": "start", "restart": "restart", "pause": "pause", "unpause": "unpause",
		"logs": "logs", "cp": "cp", "create": "create", "attach": "attach", "commit": "commit", "diff": "diff",
		"export": "export", "inspect": "inspect", "port": "port", "rename": "rename", "top": "top", "update": "update",
		"wait": "wait", "stats": "stats"},
	"image": {"rm": "rmi", "remove": "rmi", "ls": "images", "list": "images", "pull": "pull", "push": "push",
		"build": "build", "tag": "tag", "save": "save", "load": "load", "import": "import", "history": "history",
		"inspect": "inspect"},
}

// dockerGroups are docker's other management commands: their remove and
// list are rm and ls (docker volume remove x is docker volume rm x).
var dockerGroups = map[string]bool{"volume": true, "network": true, "plugin": true, "secret": true, "config": true,
	"context": true, "node": true, "service": true, "stack": true, "builder": true, "buildx": true, "manifest": true,
	"trust": true}

// dockerGroupVerbs are the verbs those spell two ways.
var dockerGroupVerbs = map[string]string{"remove": "rm", "list": "ls"}

// dockerGroupAlts spells out the verb after the management command at
// args[i]: remove is rm, list is ls.
func dockerGroupAlts(args []string, i int) [][]string {
	full := dockerGroupVerbs[args[i+1]]
	if full == "" {
		return nil
	}
	alt := append([]string(nil), args...)
	alt[i+1] = full
	return [][]string{alt}
}

// helmAliases and pnpmAliases are the programs' aliases for their commands
// (helm 3, pnpm 9); helmCommands and pnpmCommands their commands, where
// the search for the command word stops.
var (
	helmAliases  = map[string]string{"del": "uninstall", "delete": "uninstall", "un": "uninstall", "ls": "list"}
	helmCommands = map[string]bool{"completion": true, "create": true, "dependency": true, "env": true, "get": true,
		"help": true, "history": true, "install": true, "lint": true, "list": true, "package": true, "plugin": true,
		"pull": true, "push": true, "registry": true, "repo": true, "rollback": true, "search": true, "show": true,
		"status": true, "template": true, "test": true, "uninstall": true, "upgrade": true, "verify": true, "version": true}
	pnpmAliases = map[string]string{"i": "install", "rm": "remove", "un": "remove", "uninstall": "remove",
		"up": "update", "upgrade": "update", "ln": "link", "ls": "list", "t": "test", "tst": "test", "it": "install-test",
		"run-script": "run", "dislink": "unlink"}
	pnpmCommands = map[string]bool{"add": true, "install": true, "remove": true, "update": true, "link": true,
		"list": true, "test": true, "install-test": true, "run": true, "unlink": true, "exec": true, "dlx": true,
		"create": true, "publish": true, "outdated": true, "audit": true, "why": true, "import": true, "rebuild": true,
		"prune": true, "fetch": true, "patch": true, "store": true, "start": true, "init": true, "deploy": true}
	// bunAliases are bun's (bun 1)
	bunAliases = map[string]string{"rm": "remove", "a": "add", "i": "install", "x": "exec"}
	// brewAliases are Homebrew's; its command is its first word that is
	// not an option (nil commands: aliasAlts looks no further)
	brewAliases = map[string]string{"remove": "uninstall", "rm": "uninstall", "ls": "list", "up": "update", "ln": "link",
		"homepage": "home", "abv": "info", "dr": "doctor", "environment": "--env", "-S": "search", "instal": "install",
		"uninstal": "uninstall", "lc": "livecheck", "tc": "typecheck"}
	// aptCommands maps apt's commands to apt-get's, and purge to what it is
	aptCommands = map[string][]string{"full-upgrade": {"dist-upgrade"}, "purge": {"remove", "--purge"},
		"auto-remove": {"autoremove"}}
)

// programAlts is subcommandAlts for the programs of this file.
func programAlts(name string, args []string) [][]string {
	switch {
	case name == "docker" || name == "podman":
		return dockerAlts(args)
	case name == "bun":
		return aliasAlts(args, bunAliases, nil)
	case name == "gh":
		return ghAlts(args)
	case name == "go":
		return goFlagAlts(args, nil)
	case name == "redis-cli":
		return redisAlts(args)
	case name == "docker-compose":
		return [][]string{append([]string{"docker", "compose"}, args[1:]...)}
	case name == "helm":
		return aliasAlts(args, helmAliases, helmCommands)
	case name == "pnpm":
		return aliasAlts(args, pnpmAliases, pnpmCommands)
	case name == "terraform" || name == "tofu":
		return goFlagAlts(args, terraformAlts(args))
	case name == "git":
		return gitAlts(args)
	case name == "brew":
		return aliasAlts(args, brewAliases, nil)
	case name == "apt" || name == "apt-get":
		return aptAlts(name, args)
	case isPip(name) && name != "pip":
		return [][]string{append([]string{"pip"}, args[1:]...)}
	case isPython(name):
		// python3 -m pip ARGS is pip ARGS (options before -m: python3 -I -m pip)
		for i := 1; i < len(args) && strings.HasPrefix(args[i], "-"); i++ {
			if m, ok := strings.CutPrefix(args[i], "-m"); ok && m != "" && isPip(m) { // (-mpip)
				return [][]string{append([]string{"pip"}, args[i+1:]...)}
			}
			if args[i] == "-m" {
				if i+1 < len(args) && isPip(args[i+1]) {
					return [][]string{append([]string{"pip"}, args[i+2:]...)}
				}
				break
			}
		}
	}
	return nil
}

// dockerAlts reads `docker [options] container|image VERB ...` as the
// top-level command (an option's value cannot be told from the management
// command, so each word is tried until one is).
func dockerAlts(args []string) [][]string {
	for i := 1; i+1 < len(args); i++ {
		verbs, ok := dockerVerbs[args[i]]
		if !ok {
			if dockerGroups[args[i]] {
				return dockerGroupAlts(args, i)
			}
			continue
		}
		top, ok := verbs[args[i+1]]
		if !ok {
			return nil
		}
		alt := append(append(append([]string(nil), args[:i]...), top), args[i+2:]...)
		return [][]string{alt}
	}
	return nil
}

// aliasAlts spells out the first word that is one of aliases, trying each
// word that is not an option until one names a command (with no commands,
// the first word that is not an option is the command).
func aliasAlts(args []string, aliases map[string]string, commands map[string]bool) [][]string {
	for i := 1; i < len(args); i++ {
		w := args[i]
		if strings.HasPrefix(w, "-") && aliases[w] == "" {
			continue
		}
		if full, ok := aliases[w]; ok {
			alt := append([]string(nil), args...)
			alt[i] = full
			return [][]string{alt}
		}
		if commands == nil || commands[w] {
			return nil
		}
	}
	return nil
}

// gitAlts reads git branch's and git push's other spellings of an option
// (gitBranchAlts, gitPushAlts).
func gitAlts(args []string) [][]string {
	sub, rest := gitSubcommand(args[1:])
	switch sub {
	case "branch":
		return gitBranchAlts(args, len(args)-len(rest))
	case "push":
		return gitPushAlts(args, len(args)-len(rest))
	case "remote":
		if len(rest) > 0 && rest[0] == "rm" { // git remote rm is remove
			alt := append([]string(nil), args...)
			alt[len(args)-len(rest)] = "remove"
			return [][]string{alt}
		}
	}
	return nil
}

// gitPushAlts reads a push whose refspec forces (+main) or deletes
// (:feature), or that mirrors (--mirror: every ref forced, and deleted
// where the remote has more), with the option that does the same
// (--force, --delete) after the subcommand, which ends at args[at-1].
func gitPushAlts(args []string, at int) [][]string {
	force, del := false, false
	end := false
	for _, w := range args[at:] {
		switch {
		case !end && w == "--":
			end = true
		case !end && w == "--mirror":
			force, del = true, true
		case !end && strings.HasPrefix(w, "-"):
		case len(w) > 1 && w[0] == '+':
			force = true
		case len(w) > 1 && w[0] == ':':
			del = true
		}
	}
	if !force && !del {
		return nil
	}
	alt := append([]string(nil), args[:at]...)
	if force {
		alt = append(alt, "--force")
	}
	if del {
		alt = append(alt, "--delete")
	}
	return [][]string{append(alt, args[at:]...)}
}

// gitBranchAlts reads git branch's -D, -M and -C as the two options each
// stands for (-d -f, -m -f, -c -f), in a cluster too (-Dq); its options
// start at args[at].
func gitBranchAlts(args []string, at int) [][]string {
	alt := append([]string(nil), args...)
	changed := false
	for i := at; i < len(alt); i++ {
		w := alt[i]
		if w == "--" {
			break
		}
		if len(w) < 2 || w[0] != '-' || w[1] == '-' || !strings.ContainsAny(w, "DMC") {
			continue
		}
		alt[i] = strings.NewReplacer("D", "df", "M", "mf", "C", "cf").Replace(w)
		changed = true
	}
	if !changed {
		return nil
	}
	return [][]string{alt}
}

// terraformAlts reads `terraform apply -destroy ...` as `terraform destroy
// ...` (terraform's own words: destroy is an alias of it).
func terraformAlts(args []string) [][]string {
	for i := 1; i < len(args); i++ {
		if strings.HasPrefix(args[i], "-") {
			continue // (-chdir=DIR before the command)
		}
		if args[i] != "apply" {
			return nil
		}
		alt := append(append([]string(nil), args[:i]...), "destroy")
		found := false
		for _, a := range args[i+1:] {
			if a == "-destroy" || a == "--destroy" || a == "-destroy=true" || a == "--destroy=true" {
				found = true
				continue
			}
			alt = append(alt, a)
		}
		if !found {
			return nil
		}
		return [][]string{alt}
	}
	return nil
}

// aptAlts reads apt as apt-get, and its command (the first word that is
// not an option) as apt-get's (aptCommands).
func aptAlts(name string, args []string) [][]string {
	alt := append([]string{"apt-get"}, args[1:]...)
	changed := name != "apt-get"
	for i := 1; i < len(alt); i++ {
		if strings.HasPrefix(alt[i], "-") {
			continue
		}
		if full, ok := aptCommands[alt[i]]; ok {
			alt = append(append(append([]string(nil), alt[:i]...), full...), alt[i+1:]...)
			changed = true
		}
		break
	}
	if !changed {
		return nil
	}
	return [][]string{alt}
}

// ghAlts spells out gh's aliases: secret and variable remove are delete.
func ghAlts(args []string) [][]string {
	if len(args) > 2 && (args[1] == "secret" || args[1] == "variable") && args[2] == "remove" {
		alt := append([]string(nil), args...)
		alt[2] = "delete"
		return [][]string{alt}
	}
	return nil
}

// goFlagAlts adds to alts a reading with every --flag as -flag: Go's flag
// package (go, terraform, tofu) takes either (go clean --modcache).
func goFlagAlts(args []string, alts [][]string) [][]string {
	var alt []string
	for i, w := range args {
		if w == "--" {
			break
		}
		if len(w) > 2 && strings.HasPrefix(w, "--") {
			if alt == nil {
				alt = append([]string(nil), args...)
			}
			alt[i] = w[1:]
		}
	}
	if alt == nil {
		return alts
	}
	out := [][]string{alt}
	for _, a := range alts { // (and each other reading likewise)
		if b := goFlagAlts(a, nil); b != nil {
			out = append(out, b[0])
		} else {
			out = append(out, a)
		}
	}
	return out
}

// redisAlts reads redis-cli's command words in lower case: Redis takes
// commands in any case (FLUSHALL is flushall).
func redisAlts(args []string) [][]string {
	alt := append([]string(nil), args...)
	changed := false
	for i := 1; i < len(alt); i++ {
		if !strings.HasPrefix(alt[i], "-") {
			if l := strings.ToLower(alt[i]); l != alt[i] {
				alt[i], changed = l, true
			}
		}
	}
	if !changed {
		return nil
	}
	return [][]string{alt}
}
