package defaults_test

import (
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/rulecorpus"
)

var testEnv = command.Env{Cwd: "/work/proj", Home: "/home/u"}

var (
	corpusRows    = rulecorpus.Rows
	unescapeField = rulecorpus.UnescapeField
	bypassFixture = rulecorpus.LinkFixture
)

func bash(cmd string) *command.Call {
	return command.Prepare("Bash", map[string]any{"command": cmd}, testEnv)
}

func mustRule(t testing.TB, text string) *matcher.Rule {
	t.Helper()
	r, err := matcher.ParseRule(text)
	if err != nil {
		t.Fatalf("ParseRule(%q) error: %v", text, err)
	}
	return r
}
