// Package demo is a scripted run.Backend for `vibing-agent run --backend
// demo` (and `make demo`): an agent that needs no API key and no network, so
// a newcomer can see approvals, refusals, slash commands and the audit log.
//
// It goes through exactly the same pipeline as the claude backend. For every
// tool call it reports KindToolUse, then asks with a KindPermission event,
// waits for the Verdict and only when allowed executes the call for real in
// the turn's working directory (a demo project made by
// scripts/demo-project.sh), then reports KindToolResult. A denied call gets
// an error result carrying the verdict's message, as the model would see it.
//
// The script (script.go): read README.md, edit hello.py, run hello.py (a
// Bash command, try `sudo rm -rf …` (refused by the default deny rules and
// never executed by the demo whatever the verdict), fetch example.com
// (simulated: the demo never touches the network), write a new version of
// README.md (a diff to review side by side with d), and sum up. A prompt that
// contains the word "again" gets a shorter script (the edit again, the same
// Bash and a new one).
//
// Like the claude backend, one demo agent answers the whole chat: its Conn
// is a run.Prompter, so the chat's later messages go to the same agent in the
// same session (one session id, tool_use ids unique over the messages) and
// ask like the first one wherever the person's rules and the session's
// grants do not cover a call. It is a run.Switcher too: a model changed with
// /model is named in the next reply (the demo has no model to switch).
//
// Interrupt ends the running message after the step it is in (a command it
// runs is stopped) with a result that says so, and the agent waits for the
// next message; EndInput ends it once idle; Kill and a cancelled context
// stop it at once.
package demo
