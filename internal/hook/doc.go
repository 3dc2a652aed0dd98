// Package hook is `vibing-agent hook`: the decision pipeline as a Claude
// Code command hook, so every Claude Code session — in a terminal or any
// editor — is decided by the same engine as a vibing chat (SPEC §12).
//
// Handle reads one hook input (PreToolUse or UserPromptSubmit) and returns
// exactly one answer object. PreToolUse answers carry hookEventName (the
// CLI ignores an answer without it): guard, deny and ask rules answer deny
// or ask, allow rules allow, and a call only the mode would decide gets {}
// so the CLI's own mode stands. UserPromptSubmit answers block a prompt
// whose @-mentions name a file a Read deny rule covers: the CLI reads those
// files itself, without a tool call. Every error and panic becomes a deny
// (or a blocked prompt) with one sentence, never an empty answer, because
// the CLI treats an empty answer as "no opinion".
//
// The package also edits Claude Code settings files to install, remove and
// check the hook entry (install.go, status.go), and recognises the claude
// process that `vibing-agent run` started, where the run decides and the
// hook stands aside (standaside.go).
package hook
