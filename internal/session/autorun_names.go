package session

import (
	"path/filepath"
	"strings"
)

// cwdNames lets namedPaths pass over a word that is one plain name without
// building its path from the working folder (a Bash line names such words
// all the time: npm test, make build). classify can find cwd/NAME to be a
// file that runs code by itself for one of two reasons: the working folder
// (a folder it lies in is one, or a .git above it), which a probe name no
// file has tells once; or NAME itself, which must then be a part of a name
// classify knows (homeAutorun, systemAutorun, the hooks folders, the project
// names it matches at any depth). TestCwdNamesTwin holds passes to classify.
type cwdNames struct {
	plain bool            // the working folder is clean and absolute, and the probe below it classifies as nothing
	names map[string]bool // every part of those names, in lower case
}

// projectNames are the names classify matches at any depth, and below a
// .git (gitHit): a name either of them learns must be added here, or
// cwdNames would pass it over.
var projectNames = []string{".claude", ".git", "hooks", "config", "config.worktree", "commondir", "gitdir", "CLAUDE.md", "CLAUDE.local.md", ".mcp.json"}

// probeName is a name no file classify knows has, nor any part of one.
const probeName = "\x01"

// cwdNameTest returns the engine's cwdNames, made on first use.
func (e *Engine) cwdNameTest() *cwdNames {
	e.cwdNamesOnce.Do(func() { e.cwdNames = e.makeCwdNames() })
	return &e.cwdNames
}

func (e *Engine) makeCwdNames() cwdNames {
	t := cwdNames{names: map[string]bool{}}
	add := func(p string) {
		for _, s := range strings.Split(p, "/") {
			if s != "" {
				t.names[strings.ToLower(s)] = true
			}
		}
	}
	for _, list := range [][]autorunName{homeAutorunList, systemAutorunList} {
		for _, n := range list {
			add(n.name)
		}
	}
	for _, h := range e.hooksDirs() {
		add(h)
	}
	for _, n := range projectNames {
		add(n)
	}
	if cwd := e.env.Cwd; filepath.IsAbs(cwd) && filepath.Clean(cwd) == cwd {
		_, hit := e.classify(filepath.Join(cwd, probeName))
		t.plain = !hit
	}
	return t
}

// passes reports whether classify(filepath.Join(cwd, cand)) is surely
// false: cand is one plain ASCII name (letter case is then folded as
// classify's EqualFold does) that is no part of a name classify knows, in a
// working folder that is plain.
func (t *cwdNames) passes(cand string) bool {
	if !t.plain || cand == "" || cand == "." || cand == ".." {
		return false
	}
	for i := 0; i < len(cand); i++ {
		if c := cand[i]; c == '/' || c >= 0x80 {
			return false
		}
	}
	return !t.names[strings.ToLower(cand)]
}
