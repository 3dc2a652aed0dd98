// Package rpc is the msgpack-RPC host the Neovim plugin talks to
// (`vibing-agent rpc`). Its methods take buffer text (lines), never file
// paths, so unsaved chats work: validate and canonicalise a rule, read a
// chat's settings, edit the frontmatter (lists, mode, preset, session),
// explain the effective permissions, query the audit log, and list tools,
// modes and presets.
//
// The logic is plain Go (Host.Handle and the functions it calls) so it is
// tested without Neovim; Serve only registers Handle for every method name
// with github.com/neovim/go-client. Every method validates its arguments and
// answers bad input with an error reply; a panic in a method becomes an error
// reply too, never a dead host.
package rpc
