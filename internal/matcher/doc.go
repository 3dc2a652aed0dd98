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
// su/runuser -c, env -S and the usual wrappers count as simple commands,
// braces are expanded (bounded by maxBraceWords; past it the line matches),
// and file rules fire on every argument word and input redirection that
// names a matching path (Read(.env) denies `cat .env`; runners.go, args.go).
//
// What the engine cannot see through, a deny or ask rule catches
// (opaque.go): a command name, script or file argument only known at run
// time, a script fed to a shell through its input, a runner or program the
// engine does not know, inline code that can start commands, a variable
// that changes what runs. Such a command is "unseen": every deny and ask
// rule that could apply fires on it, and Rule.Unseen says why. Variables
// the line sets to literals are followed first (vars.go), and programs.go
// holds what the engine knows of each program. effects.go is the one model
// of the files a command writes.
//
// A deny or ask rule naming a literal path also fires on a hard link to
// that file made earlier (same device and inode; hardlink.go), at the cost
// of one stat per path per call.
//
// Hosts are compared in one canonical spelling (normHost, ipaddr.go):
// numeric hosts read as the WHATWG URL parser reads them, IPv6 in brackets.
// A WebFetch host rule is the exact host in the allow list and the host
// with its subdomains in the deny and ask lists. Deny and ask WebFetch host
// rules also fire on the hosts a Bash line contacts (hosts.go, nettools.go):
// those its network commands name, those of URLs in any command's
// arguments, and, failing closed, any host only known at run time.
//
// A decision's cost is bounded whatever the call or the rules: a Bash line
// over 256 KiB or of more than 10,000 simple commands is not parsed further
// (Err: deny/ask fire, no pattern allows; prepare.go); sh -c/eval nesting
// stops at maxScriptDepth and braces at maxBraceWords; regex rules get
// 50 ms per evaluation and 250 ms per call in all (rule.go); path patterns
// match through a linear-time regexp translation of the glob (glob.go); and
// symlinks are resolved over at most the first 4 KiB of a path.
//
// Deny recognises the built-in destructive commands on the parsed
// line (and on the raw words of a line that does not parse), and Suggest
// proposes the narrowest useful rule for an approval.
package matcher
