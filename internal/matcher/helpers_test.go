package matcher_test

import (
	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/rulecorpus"
)

var testEnv = command.Env{Cwd: "/work/proj", Home: "/home/u"}

var mustRule = rulecorpus.MustRule

func bash(cmd string) *command.Call {
	return command.Prepare("Bash", map[string]any{"command": cmd}, testEnv)
}

func parseList(s string) matcher.List {
	switch s {
	case "deny":
		return matcher.DenyList
	case "ask":
		return matcher.AskList
	}
	return matcher.AllowList
}

var corpusRows = rulecorpus.Rows
