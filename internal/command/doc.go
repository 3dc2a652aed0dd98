// Package command is the one analysis of a tool call: what it runs, reads,
// writes, deletes and contacts, where its folder goes, and what the engine
// cannot see. Every layer reads this one value (the rules in
// internal/matcher, the built-in deny rules, the guard and the default steps
// of internal/session, the approval preview, the sandbox's view and the
// oracle); none parses the call again.
//
// Prepare makes a Call once per tool call: the Bash line parsed as shell
// with mvdan.cc/sh and walked (shell.go, words.go, vars.go, cwd.go), paths
// resolved through symlinks (resolve.go), URLs parsed, and the readings of
// a file tool's path worked out beforehand (views.go). The walk follows
// what bash does: commands inside sh -c, eval, substitutions and functions
// count as simple commands (runners.go, wrappers.go), braces are expanded
// (bounded by maxBraceWords), variables the line sets to literals are
// followed, and the working folder is scoped as the shell scopes it.
//
// What the walk cannot see through is marked "unseen" on the command
// (opaque.go): a command name, script or file argument only known at run
// time, a script fed to a shell through its input, a runner or program the
// engine does not know, inline code that can start commands (inline.go,
// coderisk.go), a variable that changes what runs. programs.go holds what
// the engine knows of each program; effects.go is the one model of the
// files a command writes, moves or deletes; extract.go and internal/patch
// the files archives and patches name; hosts.go and nettools.go the hosts
// a line contacts (numeric hosts in one canonical spelling, internal/hostaddr);
// search.go what Grep, Glob and LS read.
//
// A call's cost is bounded whatever its input: a Bash line over 256 KiB or
// of more than 10,000 simple commands is not parsed further (Err set);
// sh -c/eval nesting stops at maxScriptDepth; path patterns match through a
// linear-time regexp translation of the glob (glob.go); and symlinks are
// resolved over at most the first 4 KiB of a path.
package command
