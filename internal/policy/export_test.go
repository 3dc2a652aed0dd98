package policy_test

import "vibing/internal/command"

var (
	allowList = command.AllowList
	denyList  = command.DenyList
)
