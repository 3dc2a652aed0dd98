package preview

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"vibing/internal/command"
	"vibing/internal/safefile"
)

// bashPreview previews a Bash call: the whole command, the agent's description,
// and what a person must notice, read from the one parsed model of the line
// (command.Call): files written, moved or deleted, hosts contacted,
// privilege, scripts run and commands run inside sh -c or eval.
func bashPreview(c *command.Call, input map[string]any) Preview {
	p := Preview{Kind: KindCommand, Command: c.Command}
	if d, ok := input["description"].(string); ok {
		p.Description = strings.TrimSpace(d)
	}
	p.Effects = Effects(c)
	return p
}

// Effects lists, one short sentence each, what a Bash line does that a
// person must notice before approving it.
func Effects(c *command.Call) []string {
	e := &effects{c: c, seen: map[string]bool{}}
	if c.Err != nil {
		e.add("cannot be read in full: %v", c.Err)
	}
	for i := range c.Commands {
		e.command(i)
	}
	if hs := c.Hosts(); len(hs) > 0 {
		e.add("contacts %s", strings.Join(hs, ", "))
	}
	if why := c.HostsUnknown(); why != "" {
		e.add("may contact a host not known in advance: %s", why)
	}
	if c.ForkBomb {
		e.add("defines a function that calls itself in the background (a fork bomb)")
	}
	if len(e.out) > MaxEffects {
		n := len(e.out) - MaxEffects
		e.out = append(e.out[:MaxEffects], fmt.Sprintf("… and %d more", n))
	}
	return e.out
}

type effects struct {
	c    *command.Call
	out  []string
	seen map[string]bool
}

func (e *effects) add(format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	if !e.seen[s] {
		e.seen[s] = true
		e.out = append(e.out, s)
	}
}

var (
	shells     = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true}
	privileged = map[string]bool{"sudo": true, "su": true, "doas": true, "pkexec": true, "runuser": true}
	deleters   = map[string]bool{"rm": true, "rmdir": true, "unlink": true, "shred": true}
	copiers    = map[string]bool{"cp": true, "rsync": true, "install": true, "scp": true}
	modes      = map[string]bool{"chmod": true, "chown": true, "chgrp": true}
	interp     = map[string]bool{"python": true, "python3": true, "node": true, "ruby": true, "perl": true, "php": true, "deno": true, "bun": true, "tsx": true, "ts-node": true}
	pkgRunners = map[string]bool{"npm": true, "pnpm": true, "yarn": true, "bun": true}
)

func (e *effects) command(i int) {
	cmd := &e.c.Commands[i]
	if len(cmd.Args) == 0 && len(cmd.Words) == 0 {
		return
	}
	args := cmd.Args
	if len(args) == 0 {
		args = cmd.Words
	}
	name := path.Base(args[0])
	if par := cmd.Parent(); par >= 0 && par < len(e.c.Commands) && !cmd.DenyOnly() {
		e.add("runs %s inside %s", code(cmd.Text), runnerName(&e.c.Commands[par]))
	}
	if why := cmd.Unseen(); why != "" {
		e.add("cannot be seen through: %s", why)
	}
	for _, w := range append(cmd.Wrappers(), name) {
		if privileged[path.Base(w)] {
			e.add("runs with privileges of another user (%s)", path.Base(w))
			break
		}
	}
	for _, f := range cmd.Redirects() {
		if f != "/dev/null" && f != "/dev/stdout" && f != "/dev/stderr" {
			e.add("writes %s (redirection)", f)
		}
	}
	if cmd.DenyOnly() {
		return
	}
	paths, inside, removes := e.c.CommandWrites(i)
	removes = removes || (name == "find" && slices.Contains(args, "-delete"))
	ops := operands(args[1:])
	rec := recursive(name, args[1:])
	switch {
	case deleters[name]:
		e.add("deletes %s%s", list(paths), flags(rec, forced(args[1:])))
	case name == "mv" && len(ops) > 1:
		e.add("moves %s to %s", list(ops[:len(ops)-1]), ops[len(ops)-1])
	case copiers[name] && len(ops) > 1:
		e.add("copies %s to %s%s", list(ops[:len(ops)-1]), ops[len(ops)-1], flags(rec, false))
	case modes[name] && len(paths) > 0:
		e.add("changes %s of %s%s", map[string]string{"chmod": "the permissions", "chown": "the owner", "chgrp": "the group"}[name], list(paths), flags(rec, false))
	case len(paths) > 0:
		e.add("writes %s (%s)", list(paths), name)
	}
	for _, d := range inside {
		if removes {
			e.add("deletes files inside %s (%s)", d, name)
		} else {
			e.add("writes files inside %s (%s)", d, name)
		}
	}
	e.scripts(name, args)
	if name == "git" && len(ops) > 0 && ops[0] == "push" {
		remote := "the default remote"
		if len(ops) > 1 {
			remote = ops[1]
		}
		force := ""
		if slices.ContainsFunc(args, func(a string) bool { return a == "-f" || strings.HasPrefix(a, "--force") }) {
			force = " (force)"
		}
		e.add("pushes to %s%s", remote, force)
	}
}

// scripts names the script files and package scripts a command runs.
func (e *effects) scripts(name string, args []string) {
	ops := operands(args[1:])
	switch {
	case (shells[name] || name == "source" || name == ".") && len(ops) > 0 && !slices.Contains(args, "-c"):
		e.add("runs the script %s", ops[0])
	case interp[name] && len(ops) > 0 && !slices.ContainsFunc(args[1:], isInlineFlag) && ops[0] != "-" && !pkgRunners[name]:
		e.add("runs the script %s with %s", ops[0], name)
	case strings.HasPrefix(name, "./") || (strings.Contains(args[0], "/") && !strings.HasPrefix(args[0], "/usr/") && !strings.HasPrefix(args[0], "/bin/")):
		e.add("runs the program %s", args[0])
	case pkgRunners[name] && len(ops) > 0:
		e.pkgScript(name, ops)
	case name == "make":
		target := "the default target"
		if len(ops) > 0 {
			target = ops[0]
		}
		e.add("runs make %s (the Makefile's recipe)", target)
	}
}

func isInlineFlag(a string) bool {
	return a == "-c" || a == "-e" || a == "--eval" || a == "-p" || a == "--print" || a == "-m"
}

// pkgScript names the package.json line `npm run x` runs.
func (e *effects) pkgScript(name string, ops []string) {
	script := ""
	switch {
	case (ops[0] == "run" || ops[0] == "run-script") && len(ops) > 1:
		script = ops[1]
	case ops[0] == "test" || ops[0] == "start" || ops[0] == "stop" || ops[0] == "restart":
		script = ops[0]
	case name == "yarn" || name == "pnpm" || name == "bun":
		if !pkgBuiltins[ops[0]] {
			script = ops[0]
		}
	}
	if ops[0] == "install" || ops[0] == "i" || ops[0] == "ci" || ops[0] == "add" {
		e.add("installs packages, which may run their install scripts (%s %s)", name, ops[0])
	}
	if script == "" {
		return
	}
	line, ok := e.packageScript(script)
	if !ok {
		e.add("runs the %s script %q (package.json has no such script here)", name, script)
		return
	}
	e.add("runs the %s script %q: %s (package.json)", name, script, line)
}

var pkgBuiltins = map[string]bool{"install": true, "add": true, "remove": true, "up": true, "upgrade": true,
	"i": true, "ci": true, "init": true, "dlx": true, "exec": true, "x": true, "info": true, "why": true, "list": true}

func (e *effects) packageScript(name string) (string, bool) {
	dir := e.c.Env.Cwd
	if len(e.c.Env.Shell) > 0 {
		dir = e.c.Env.Shell[0]
	}
	b, err := safefile.ReadFile(filepath.Join(dir, "package.json"), safefile.PolicyLimit)
	if err != nil {
		return "", false
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return "", false
	}
	s, ok := pkg.Scripts[name]
	return s, ok
}

func runnerName(c *command.Command) string {
	args := c.Args
	if len(args) == 0 {
		args = c.Words
	}
	if len(args) == 0 {
		return "another command"
	}
	name := path.Base(args[0])
	switch {
	case shells[name] && slices.Contains(args, "-c"):
		return name + " -c"
	case name == "eval":
		return "eval"
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-exec") {
			return name + " " + a
		}
	}
	return name
}

func operands(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

func recursive(name string, args []string) bool {
	for _, a := range args {
		if a == "--recursive" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") &&
			(strings.ContainsAny(a[1:], "rR") || (name == "cp" && strings.Contains(a[1:], "a")))) {
			return true
		}
	}
	return false
}

func forced(args []string) bool {
	for _, a := range args {
		if a == "--force" || (strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a[1:], "f")) {
			return true
		}
	}
	return false
}

func flags(rec, force bool) string {
	switch {
	case rec && force:
		return " (recursive, forced)"
	case rec:
		return " (recursive)"
	case force:
		return " (forced)"
	}
	return ""
}

func list(ps []string) string {
	if len(ps) == 0 {
		return "(nothing named)"
	}
	if len(ps) > 6 {
		return strings.Join(ps[:6], ", ") + fmt.Sprintf(" and %d more", len(ps)-6)
	}
	return strings.Join(ps, ", ")
}

func code(s string) string {
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return "`" + s + "`"
}
