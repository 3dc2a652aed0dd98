package policy_test

import "vibing/internal/matcher"

var (
	allowList = matcher.AllowList
	denyList  = matcher.DenyList
)
