package session

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"vibing/internal/command"
	"vibing/internal/config"
)

// guardedPaths lists what no tool call may modify: the project's .vibing
// folder, the chat file, the user's config file, vibing's state folder (audit
// database) and the user's vibing configuration folder.
func guardedPaths(cfg *config.Config, opts Options, env command.Env) []string {
	root := opts.ProjectRoot
	if root == "" {
		root = env.Cwd
	}
	var out []string
	add := func(p string) { out = appendGuard(out, p, env) }
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

// guards returns the guarded set: the paths guardMake lists, resolved
// the first time a call may change something, of which the .vibing
// folders and the chat file are also refused when a word of a command that
// may change files merely contains their name.
func (e *Engine) guards() *command.Guarded {
	e.guardOnce.Do(func() {
		// (guardMake is nil for an engine whose environment could not be
		// read: it denies every call)
		e.guardSet = command.NewGuarded(e.guardMake, []string{".vibing", e.chatBase}, e.env)
	})
	return e.guardSet
}

// guardList returns the guarded paths, resolving them the first time.
func (e *Engine) guardList() []string { return e.guards().Paths() }

// appendGuard adds p, and its resolved target where that differs, to out.
func appendGuard(out []string, p string, env command.Env) []string {
	if p == "" {
		return out
	}
	r := command.ResolvePath(p, env)
	// each once: every call is checked against the whole list
	if !slices.Contains(out, r.Abs) {
		out = append(out, r.Abs)
	}
	if r.Real != r.Abs && !slices.Contains(out, r.Real) {
		out = append(out, r.Real)
	}
	return out
}

// notGuarded is the reason of the deny of a call that was not prepared
// against this engine's guarded set (Engine.prepare): what it may modify
// among vibing's own files is not known.
const notGuarded = "The call was not checked against the files that hold vibing's permissions (it was not prepared by this engine), so it is denied."

// guardDenial is the deny of the guard (step 1) for c, which could modify p.
func guardDenial(c *command.Call, p string) Decision {
	return Decision{Decision: Deny, Source: SourceGuard,
		Reason: fmt.Sprintf("%s could modify %s, which holds vibing's permissions; only you can change those (use the slash commands).", describe(c), p)}
}
