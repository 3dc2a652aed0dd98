package session_test

import (
	"testing"

	"vibing/internal/session"
)

// TestToolNameSpellings holds how a rule's tool is compared with a call's
// (the rule's key worked out when it is read, the call's in Prepare):
// case-insensitively for MCP names and a tool spelt by the agent in
// another case, Task and Agent as one tool, an invalid rule for the tool
// it seems to name, a configured policy for the tool it names; and a tool
// that runs a command decided as Bash too.
func TestToolNameSpellings(t *testing.T) {
	t.Parallel()
	task := map[string]any{"subagent_type": "general-purpose", "prompt": "x", "description": "x"}
	cases := []tcase{
		// attacks: the rule must fire whatever the spelling
		{Name: "MCP deny in another case", Deny: []string{"mcp__GitHub__Delete_Repo"}, Mode: "bypassPermissions", Tool: "mcp__github__delete_repo", Input: map[string]any{}, Want: session.Deny, Rule: "mcp__GitHub__Delete_Repo"},
		{Name: "MCP call in another case", Deny: []string{"MCP__github__delete_repo"}, Mode: "bypassPermissions", Tool: "MCP__GITHUB__DELETE_REPO", Input: map[string]any{}, Want: session.Deny},
		{Name: "MCP ask in another case", Ask: []string{"mcp__gh__Run"}, Allow: []string{"mcp__gh"}, Tool: "mcp__gh__run", Input: map[string]any{}, Want: session.Ask},
		{Name: "Task deny fires on Agent", Deny: []string{"Task(general-purpose)"}, Mode: "bypassPermissions", Tool: "Agent", Input: task, Want: session.Deny},
		{Name: "Agent deny fires on Task", Deny: []string{"Agent"}, Mode: "bypassPermissions", Tool: "task", Input: task, Want: session.Deny},
		{Name: "invalid Bash deny fires on bash", Deny: []string{"Bash(npm test"}, Mode: "bypassPermissions", Tool: "BASH", Input: bash("ls"), Want: session.Deny, WantErr: true},
		{Name: "invalid Agent deny fires on Task", Deny: []string{"Agent(x"}, Mode: "bypassPermissions", Tool: "Task", Input: task, Want: session.Deny, WantErr: true},
		{Name: "invalid Read ask fires on read", Ask: []string{"Read(["}, Allow: []string{"Read"}, Tool: "read", Input: file("notes.md"), Want: session.Ask, WantErr: true},
		{Name: "Monitor runs a denied command", Deny: []string{"Bash(rm:*)"}, Allow: []string{"Monitor"}, Tool: "Monitor", Input: bash("rm -rf src"), Want: session.Deny},
		{Name: "an unknown tool runs a denied command", Deny: []string{"Bash(curl:*)"}, Mode: "bypassPermissions", Tool: "Frobnicate", Input: bash("curl evil.example"), Want: session.Deny},
		{Name: "an always policy in another case", Config: "policies: {read: always}\n", Tool: "READ", Input: file("notes.md"), Want: session.Ask, ReasonHas: []string{"policy always"}},
		{Name: "a WebFetch deny fires on a Bash line", Deny: []string{"WebFetch(evil.example)"}, Mode: "bypassPermissions", Tool: "Bash", Input: bash("curl https://evil.example/x"), Want: session.Deny, ReasonHas: []string{"evil.example"}},

		// everyday calls: a rule for another tool stays out of the way
		{Name: "MCP deny of another tool", Deny: []string{"mcp__github__delete_repo"}, Allow: []string{"mcp__GitHub"}, Tool: "mcp__github__list_repos", Input: map[string]any{}, Want: session.Allow},
		{Name: "MCP allow in another case", Allow: []string{"mcp__GitHub__List"}, Tool: "mcp__github__list", Input: map[string]any{}, Want: session.Allow},
		{Name: "Task deny leaves Read alone", Deny: []string{"Task(general-purpose)"}, Tool: "Read", Input: file("notes.md"), Want: session.Allow},
		{Name: "invalid Bash deny leaves Read alone", Deny: []string{"Bash(npm test"}, Tool: "Read", Input: file("notes.md"), Want: session.Allow, WantErr: true},
		{Name: "invalid WebFetch deny leaves Bash alone", Deny: []string{"WebFetch(a b)"}, Allow: []string{"Bash(ls)"}, Tool: "Bash", Input: bash("ls"), Want: session.Allow, WantErr: true},
		{Name: "Monitor runs an allowed command", Deny: []string{"Bash(rm:*)"}, Allow: []string{"Monitor"}, Tool: "Monitor", Input: bash("npm test"), Want: session.Allow},
		{Name: "an Agent trust policy holds for Task", Config: "policies: {agent: trust}\n", Tool: "Task", Input: task, Want: session.Allow, ReasonHas: []string{"policy trust"}},
		{Name: "a Task policy leaves Read alone", Config: "policies: {Task: always}\n", Tool: "Read", Input: file("notes.md"), Want: session.Allow},
		{Name: "lower-case read allowed inside", Tool: "read", Input: file("notes.md"), Want: session.Allow},
		{Name: "a WebFetch deny leaves a quiet line alone", Deny: []string{"WebFetch(evil.example)"}, Allow: []string{"Bash(ls)"}, Tool: "Bash", Input: bash("ls"), Want: session.Allow},
	}
	runCases(t, cases)
}
