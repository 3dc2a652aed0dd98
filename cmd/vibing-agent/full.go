package main

import (
	"context"

	"vibing/internal/selfexe"
)

// The commands that need the audit database (SQLite) or the Neovim client
// (msgpack-RPC). A build with the "lean" tag leaves their files out and
// hands these commands to vibing-agent-full, installed beside it
// (forward_lean.go): Go runs the initialisation of every package a binary
// links, so check and hook, which Claude Code starts for every tool call,
// would otherwise pay at each start for SQLite and msgpack they never use
// (SPEC §9). A build without the tag (go build, go test) holds every command.
var fullCommands = []subcommand{
	{name: "audit", summary: "list recent permission decisions from the audit log", signals: true},
	{name: "rpc", summary: "serve the Neovim plugin over msgpack-RPC on stdio", signals: true},
	{name: "run", summary: "run one agent turn for a chat (JSON Lines on stdio)", signals: true},
}

// fullBinary is the name of the build that holds every command, which a
// lean vibing-agent runs for the commands of fullCommands.
const fullBinary = selfexe.Full

// registerFull registers the command of fullCommands named name.
func registerFull(name string, run func(ctx context.Context, args []string, io stdio) int) {
	for _, c := range fullCommands {
		if c.name == name {
			c.run = run
			register(c)
			return
		}
	}
	panic("vibing-agent: " + name + " is not among fullCommands")
}
