package session

import (
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/config"
	"vibing/internal/matcher"
	"vibing/internal/tools"
)

// guardedPaths lists what no tool call may modify: the project's .vibing
// folder, the chat file, the user's config file, vibing's state folder (audit
// database) and the user's vibing configuration folder.
func guardedPaths(cfg *config.Config, opts Options, env matcher.Env) []string {
	root := opts.ProjectRoot
	if root == "" {
		root = env.Cwd
	}
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		r := matcher.ResolvePath(p, env)
		out = append(out, r.Abs)
		if r.Real != r.Abs {
			out = append(out, r.Real)
		}
	}
	add(filepath.Join(root, ".vibing"))
	add(filepath.Join(env.Cwd, ".vibing"))
	add(opts.ChatFile)
	add(opts.ConfigFile)
	add(cfg.AuditDB())
	add(config.StateDir())
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" {
		add(filepath.Join(d, "vibing"))
	} else if env.Home != "" {
		add(filepath.Join(env.Home, ".config", "vibing"))
	}
	return out
}

// guard is step 1: it reports the guarded path that c would modify.
func (e *Engine) guard(c *matcher.Call) (string, bool) {
	var paths []matcher.Path
	if info, ok := tools.Lookup(c.Tool); ok && info.Edit && c.Path != nil {
		paths = append(paths, *c.Path)
	}
	if c.Tool == "Bash" {
		if c.Err != nil {
			// The line could not be parsed: refuse when it so much as names a
			// guarded place.
			for _, g := range e.guarded {
				if strings.Contains(c.Command, filepath.Base(g)) {
					return g, true
				}
			}
		}
		paths = append(paths, c.Modifies...)
		// A "cd dir && rm x" changes what a relative path means: check the
		// relative targets against every folder the line changes into.
		for _, dir := range cdTargets(c) {
			env := matcher.Env{Cwd: dir.Abs, Home: e.env.Home}
			for _, p := range c.Modifies {
				if p.Raw != "" && !filepath.IsAbs(p.Raw) && !strings.HasPrefix(p.Raw, "~") {
					paths = append(paths, matcher.ResolvePath(p.Raw, env))
				}
			}
		}
	}
	for _, p := range paths {
		for _, g := range e.guarded {
			if within(p.Abs, g) || within(p.Real, g) {
				return g, true
			}
		}
	}
	return "", false
}

// cdTargets returns the folders a Bash line changes into.
func cdTargets(c *matcher.Call) []matcher.Path {
	var out []matcher.Path
	for _, cmd := range c.Commands {
		if len(cmd.Args) >= 2 && (cmd.Args[0] == "cd" || cmd.Args[0] == "pushd") {
			out = append(out, matcher.ResolvePath(cmd.Args[len(cmd.Args)-1], c.Env))
		}
	}
	return out
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	if p == "" || dir == "" {
		return false
	}
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}
