// Package matcher parses permission rules and matches them against tool calls.
//
// A rule is compiled once by ParseRule; a tool call is analysed once by
// command.Prepare (internal/command: the Bash line parsed as shell with
// mvdan.cc/sh and walked, paths resolved through symlinks, URLs parsed);
// then Match decides each rule against that one analysis without further
// parsing or filesystem work.
//
// Matching depends on the list a rule stands in. The security rule is that
// allow lists must cover the whole call (every simple command of a Bash line,
// the path as written and its symlink target, an http(s) URL), while deny and
// ask lists fire on any part and fail closed: a call or rule that cannot be
// understood or evaluated matches them.
//
// For Bash, deny and ask lists look further than allow lists do: options
// compare by meaning (Bash(rm -rf) fires on `rm -f -R x` and
// `rm --recursive --force x`; flags.go), commands run by find -exec,
// su/runuser -c, env -S and the usual wrappers count as simple commands
// (the analysis sees through them), and file rules fire on every argument
// word and input redirection that names a matching path (Read(.env) denies
// `cat .env`; match.go, matchpath.go).
//
// What the analysis cannot see through (a command marked unseen), every
// deny and ask rule that could apply fires on, and the Hit of the match
// (Rule.HowMatched, hit.go) says why.
// A file rule fires on a relative operand after a cd to a folder only
// known at run time when its last name (lastname.go) could match the
// operand's (command.Call.UnseenFor).
//
// A deny or ask rule naming a literal path also fires on a hard link to
// that file made earlier (same device and inode; command/hardlink.go), at
// the cost of one stat per path per call.
//
// Hosts are compared in one canonical spelling (command.NormHost): numeric
// hosts read as the WHATWG URL parser reads them, IPv6 in brackets. A
// WebFetch host rule is the exact host in the allow list and the host with
// its subdomains in the deny and ask lists. Deny and ask WebFetch host
// rules also fire on the hosts a Bash line contacts (matchhosts.go): those
// its network commands name, those of URLs in any command's arguments,
// and, failing closed, any host only known at run time.
//
// A decision's cost is bounded whatever the rules: regex rules get 50 ms
// per evaluation and 250 ms per call in all (rule.go), and path patterns
// match through a linear-time regexp translation of the glob
// (pathglob.Glob).
//
// Suggest proposes the narrowest useful rule for an approval. The built-in
// destructive-command rules are internal/defaults.
package matcher
