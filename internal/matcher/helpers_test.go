package matcher_test

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"vibing/internal/command"

	"vibing/internal/matcher"
)

var testEnv = command.Env{Cwd: "/work/proj", Home: "/home/u"}

func mustRule(t testing.TB, text string) *matcher.Rule {
	t.Helper()
	r, err := matcher.ParseRule(text)
	if err != nil {
		t.Fatalf("ParseRule(%q) error: %v", text, err)
	}
	return r
}

func bash(cmd string) *command.Call {
	return command.Prepare("Bash", map[string]any{"command": cmd}, testEnv)
}

func parseList(s string) command.List {
	switch s {
	case "deny":
		return command.DenyList
	case "ask":
		return command.AskList
	}
	return command.AllowList
}

// corpusRows calls row for every line of a corpus file that is neither
// blank nor a # comment, split at tabs.
func corpusRows(t *testing.T, file string, row func(line int, fields []string)) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		row(line, strings.Split(text, "\t"))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}
