package session

import (
	"bufio"
	"bytes"
	"path/filepath"
	"strings"

	"vibing/internal/safefile"
)

// The folder git runs hooks from need not be .git/hooks: core.hooksPath in
// the repository's configuration (or the person's) names another
// (.githooks/, a tools/hooks folder). A file written there runs as a hook,
// so it is a file that runs code by itself like .git/hooks.

// hooksDirs returns the absolute folders core.hooksPath names for the
// repository the working folder is in, read once.
func (e *Engine) hooksDirs() []string {
	e.hooksOnce.Do(func() {
		top := e.env.Cwd
		for dir := top; dir != "" && dir != "/"; dir = filepath.Dir(dir) {
			if fi, err := safefile.ReadFile(filepath.Join(dir, ".git", "config"), 1<<20); err == nil {
				top = dir
				e.hooks = appendHooksPath(e.hooks, fi, top, e.env.Home)
				break
			}
		}
		if e.env.Home != "" {
			for _, f := range []string{filepath.Join(e.env.Home, ".gitconfig"), filepath.Join(e.env.Home, ".config", "git", "config")} {
				if data, err := safefile.ReadFile(f, 1<<20); err == nil {
					e.hooks = appendHooksPath(e.hooks, data, top, e.env.Home)
				}
			}
		}
	})
	return e.hooks
}

// appendHooksPath adds the core.hooksPath values of a git configuration
// file, resolved against the work tree top (~ against home).
func appendHooksPath(out []string, data []byte, top, home string) []string {
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			section = ""
			if f := strings.Fields(strings.Trim(line, "[]")); len(f) > 0 {
				section = strings.ToLower(strings.Trim(f[0], `"`))
			}
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok || section != "core" || !strings.EqualFold(strings.TrimSpace(key), "hookspath") {
			continue
		}
		v := strings.Trim(strings.TrimSpace(val), `"`)
		switch {
		case v == "":
			continue
		case strings.HasPrefix(v, "~/") && home != "":
			v = filepath.Join(home, v[2:])
		case !filepath.IsAbs(v):
			v = filepath.Join(top, v)
		}
		out = append(out, filepath.Clean(v))
	}
	return out
}
