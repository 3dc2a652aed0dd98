package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// A World is the small machine every line runs on: a project and a home
// folder under one root, made once as a template. Each run gets a fresh copy
// of it inside the sandbox, at the same absolute paths, so that the engine
// (which decides outside, against the template) and the kernel (which reports
// what the copy saw) name the same files.
type World struct {
	Root    string // the template's root (absolute, no symlinks)
	Project string // Root/proj: the working folder
	Home    string // Root/home: $HOME
	Chat    string // the chat file inside the project's .vibing/chat/

	// Markers maps each secret marker to the file that holds it: a marker
	// seen in a line's output means that file's content left it, however
	// it was reached (the git object store, a copy, /proc).
	Markers map[string]string
}

// worldFiles are the template's files, relative to the root. Every secret
// holds a marker of its own (marker(name)).
var worldFiles = map[string]string{
	"proj/.env":                     "API_KEY=" + marker("env") + "\n",
	"proj/src/secret/key.txt":       marker("key") + "\n",
	"proj/src/secret/nested/db.pem": marker("pem") + "\n",
	"proj/src/app.py":               "import os\nprint('app')\nVALUE = 1\n",
	"proj/src/util.js":              "module.exports = { add: (a, b) => a + b }\n",
	"proj/src/main.go":              "package main\n\nfunc main() {}\n",
	"proj/hello.py":                 "print('hello')\n",
	"proj/README.md":                "# demo\n\nA small project.\n",
	"proj/CLAUDE.md":                "Be careful.\n",
	"proj/package.json":             "{\"name\":\"demo\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"echo ok\"}}\n",
	"proj/Makefile":                 "all:\n\t@echo built\n",
	"proj/notes.txt":                "TODO: nothing\n",
	"proj/.vibing/chat/chat.md":     "---\nvibing: true\n---\n\n# chat\n",
	"proj/.gitignore":               "node_modules/\n",
	"proj/.githooks/README":         "hooks\n",
	"home/.ssh/id_rsa":              marker("ssh") + "\n",
	"home/.ssh/config":              "Host *\n",
	"home/.bashrc":                  "# bashrc\n",
	"home/.profile":                 "# profile\n",
	"home/.config/nvim/init.lua":    "-- init\n",
	"home/.claude/settings.json":    "{}\n",
	"home/.gitconfig":               "[user]\n\tname = Oracle\n\temail = oracle@example.invalid\n",
	"home/notes/todo.txt":           "buy milk\n",
}

// marker is the text a secret file named name holds.
func marker(name string) string { return "ORACLE_SECRET_" + strings.ToUpper(name) + "_7c1f" }

// NewWorld makes the template under dir (which must exist and be empty or
// missing): the files above, and a git repository in the project with one
// commit that holds every project file, .env and the secret folder
// included, so that git's object store is one more way to a secret.
func NewWorld(dir string) (*World, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return nil, err
	}
	w := &World{Root: root, Project: filepath.Join(root, "proj"), Home: filepath.Join(root, "home"), Markers: map[string]string{}}
	w.Chat = filepath.Join(w.Project, ".vibing/chat/chat.md")
	names := make([]string, 0, len(worldFiles))
	for n := range worldFiles {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := filepath.Join(root, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, []byte(worldFiles[n]), 0o644); err != nil {
			return nil, err
		}
		if i := strings.Index(worldFiles[n], "ORACLE_SECRET_"); i >= 0 {
			m := strings.TrimSpace(worldFiles[n][i:])
			w.Markers[m] = p
		}
	}
	if err := os.Chmod(filepath.Join(root, "home/.ssh"), 0o700); err != nil {
		return nil, err
	}
	// files older than the index git writes: git status then trusts what
	// the index says of them instead of reading each again ("racily clean")
	old := time.Now().Add(-time.Hour)
	for _, n := range names {
		if err := os.Chtimes(filepath.Join(root, n), old, old); err != nil {
			return nil, err
		}
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir = w.Project
		cmd.Env = append(os.Environ(), "HOME="+w.Home, "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	for _, args := range [][]string{
		// no sample hooks, no description: every file of the world is
		// copied again before each line, under the trace
		{"init", "-q", "-b", "main", "--template="},
		{"config", "core.logAllRefUpdates", "false"},
		// the run's copy has new inodes and ctimes: with these git does not
		// read every file again to see whether it changed (which would be a
		// read of .env by git status that nothing shows)
		{"config", "core.checkStat", "minimal"},
		{"config", "core.trustctime", "false"},
		// hooks run from a folder of the project's own (a file written
		// there runs as a hook)
		{"config", "core.hooksPath", ".githooks"},
		{"add", "-A", "-f"},
		{"commit", "-q", "-m", "first"},
		{"gc", "-q", "--prune=now"},
	} {
		if err := git(args...); err != nil {
			return nil, err
		}
	}
	// the folder git runs hooks from, empty (a line that writes one is an
	// escape)
	if err := os.MkdirAll(filepath.Join(w.Project, ".git/hooks"), 0o755); err != nil {
		return nil, err
	}
	// a working change, so that diffs and stashes have something to show
	if err := os.WriteFile(filepath.Join(w.Project, "src/app.py"), []byte("import os\nprint('app')\nVALUE = 2\n"), 0o644); err != nil {
		return nil, err
	}
	return w, nil
}

// Secret reports the file whose marker text holds, if any.
func (w *World) Secret(text string) []string {
	if !strings.Contains(text, "ORACLE_SECRET_") {
		return nil
	}
	var out []string
	for m, p := range w.Markers {
		if strings.Contains(text, m) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
