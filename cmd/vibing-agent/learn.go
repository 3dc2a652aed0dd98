package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"vibing/internal/config"
	"vibing/internal/safefile"
	"vibing/internal/tools"
)

// The CLI names its tools in its init event; run remembers them in the
// state folder, and every command learns them before it loads rules, so a
// rule for a tool newer than vibing's table (the CLI's next release) is
// accepted instead of refused.
var learnOnce sync.Once

func learnedToolsFile() string { return filepath.Join(config.StateDir(), "cli-tools.json") }

// learnTools teaches the tool table what the last run's CLI offered.
func learnTools() {
	learnOnce.Do(func() {
		// check and hook read it first: a FIFO there must not stop them
		data, err := safefile.ReadFile(learnedToolsFile(), safefile.PolicyLimit)
		if err != nil {
			return
		}
		var names []string
		if json.Unmarshal(data, &names) == nil {
			tools.Learn(names)
		}
	})
}

// rememberTools saves the CLI's tool list for the next commands (best
// effort: a tool it cannot remember is only refused in rules, which fails
// closed).
func rememberTools(names []string) {
	names = slices.Clone(names)
	slices.Sort(names)
	if old, err := safefile.ReadFile(learnedToolsFile(), safefile.PolicyLimit); err == nil {
		var prev []string
		if json.Unmarshal(old, &prev) == nil && slices.Equal(prev, names) {
			return
		}
	}
	data, _ := json.Marshal(names)
	dir := filepath.Dir(learnedToolsFile())
	if os.MkdirAll(dir, 0o700) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".cli-tools-*.json")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), learnedToolsFile()) != nil {
		os.Remove(tmp.Name())
	}
}
