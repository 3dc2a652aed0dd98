// Package claude is the run.Backend that drives the real claude CLI through
// its stream-json control protocol.
//
// The CLI is started in its own process group with
//
//	--output-format stream-json --input-format stream-json --verbose
//	--include-partial-messages --permission-prompt-tool stdio
//	--permission-mode default|plan
//
// plus --resume, --model and --disallowedTools where the chat asks for them
// (never --allowedTools: it would make the CLI skip our callbacks). Before the
// prompt is sent, an initialize control request registers one PreToolUse
// hook callback for every tool, and the prompt is only sent once the CLI has
// acknowledged it: without the hook the CLI would run reads and its own
// allow-listed commands without asking. hook_callback and can_use_tool
// requests become run.Permission events; their answers go back as
// control_response lines. The CLI's permission_suggestions are never echoed
// (that would write rules into the user's Claude settings). A
// control_cancel_request for a request still waiting becomes a
// run.KindWithdraw event, and that request is never answered afterwards.
//
// Text reaches the runner as the model writes it (text_delta stream events),
// and each text block of an assistant message that was streamed is not sent
// again (text.go). A system/api_retry line becomes a run.KindNotice. Lines
// are read into one buffer kept for the turn and decoded lazily, so a 7 MiB
// line costs about one copy of it.
//
// The CLI's stdin stays open for the whole turn and is closed after the
// result, which makes the CLI exit. Interrupt sends an interrupt control
// request; Kill signals the whole process group, so no tool process the CLI
// started is left behind.
package claude
