// Package matcher parses permission rules and matches them against tool calls.
//
// A rule is compiled once by ParseRule; a tool call is prepared once by
// Prepare (the Bash line parsed as shell with mvdan.cc/sh, paths resolved
// through symlinks, URLs parsed); then Match decides each rule against the
// prepared call without further parsing or filesystem work.
//
// Matching depends on the list a rule stands in. The security rule is that
// allow lists must cover the whole call (every simple command of a Bash line,
// the path as written and its symlink target, an http(s) URL), while deny and
// ask lists fire on any part and fail closed: a call or rule that cannot be
// understood or evaluated matches them.
//
// DefaultDeny recognises the built-in destructive commands on the parsed
// line, and Suggest proposes the narrowest useful rule for an approval.
package matcher
