package session

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"vibing/internal/command"
)

// A tool the engine does not know (the CLI's LSP tool, an MCP server's
// tool) may still carry a path: {"file_path": ".env"}, {"uri":
// "file:///…/.env"}. What it does with it is unknown, so each such path is
// also decided as an Edit of it (Read deny rules speak for edits too): a
// deny by a rule, the guard or a file that runs code refuses the call, and
// an ask by a rule asks; the mode's own answer for the edit does not (the
// tool's own decision already follows the mode).

// maxPathViews bounds the paths one call is looked at for.
const maxPathViews = 16

// pathViews returns an Edit call for every path an unknown or MCP tool's
// input carries; nil for a tool the engine knows.
func (e *Engine) pathViews(c *command.Call) []*command.Call {
	if c.Tool == "Bash" || c.Info != nil || c.Input == nil { // (an MCP tool has no entry)
		return nil
	}
	var paths []string
	var walk func(key string, v any, depth int)
	walk = func(key string, v any, depth int) {
		if len(paths) >= maxPathViews || depth > 3 {
			return
		}
		switch v := v.(type) {
		case string:
			if p, ok := pathValue(key, v); ok {
				paths = append(paths, p)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(k, v[k], depth+1)
			}
		case []any:
			for _, x := range v {
				walk(key, x, depth+1)
			}
		}
	}
	walk("", c.Input, 0)
	out := make([]*command.Call, 0, len(paths))
	for _, p := range paths {
		out = append(out, e.prepare("Edit", map[string]any{"file_path": p}, c.Env))
	}
	return out
}

// pathValue reports whether the input value v (under key) names a file,
// and which: a file:// URI, or a path under a key that says so or spelled
// as one.
func pathValue(key, v string) (string, bool) {
	if v == "" || len(v) > 4096 || strings.ContainsAny(v, "\x00\n") {
		return "", false
	}
	if strings.HasPrefix(v, "file://") {
		u, err := url.Parse(v)
		if err != nil || u.Path == "" {
			return "", false
		}
		return u.Path, true
	}
	if strings.Contains(v, "://") {
		return "", false
	}
	k := strings.ToLower(key)
	for _, w := range []string{"path", "file", "dir", "folder", "cwd", "root", "uri", "target", "dest", "source", "src"} {
		if strings.Contains(k, w) {
			return v, true
		}
	}
	if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~/") || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") {
		return v, !strings.ContainsRune(v, ' ')
	}
	return "", false
}

// pathViewsDecide decides the path views of c: a refusal, an ask a rule
// makes, or ok false when none stands in the way.
func (e *Engine) pathViewsDecide(c *command.Call, views []*command.Call) (deny, ask Decision, hasDeny, hasAsk bool) {
	for _, v := range views {
		d := e.decide(v)
		what := fmt.Sprintf("%s names %s, which it may read or change: ", c.Tool, v.Path.Abs)
		switch {
		case d.Decision == Deny:
			d.Reason = what + d.Reason
			return d, ask, true, hasAsk
		case d.Decision == Ask && !hasAsk && (d.Rule != "" || d.Source == SourceGuard || d.Source == SourceAutorun):
			d.Reason = what + d.Reason
			ask, hasAsk = d, true
		}
	}
	return deny, ask, false, hasAsk
}
