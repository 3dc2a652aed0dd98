package defaults_test

import (
	"vibing/internal/command"
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

var mustRule = rulecorpus.MustRule
