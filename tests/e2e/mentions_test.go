package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// @path mentions with the real claude CLI: the CLI reads an allowed
// mention into the prompt (the fake API receives the file's content); a
// mention a Read deny covers is refused by the editor before anything is
// sent, so the secret never reaches the API, and the person is told the rule.
func TestChatRealMentions(t *testing.T) {
	t.Parallel()
	claude := claudeBin(t)
	api := fakeapi.New(fakeapi.Turn{Text: "It prints a number."})
	t.Cleanup(api.Close)
	c := startChat(t, "permissions_deny: [\"Read(secret.txt)\"]\n", "", map[string]any{"claude_cmd": claude})
	home := filepath.Join(filepath.Dir(c.dir), "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c.dir, "secret.txt"), []byte("TOPSECRET-4711\n"), 0o644)
	os.WriteFile(filepath.Join(c.dir, "public.py"), []byte("print('PUBLIC-0815')\n"), 0o644)
	c.lua(`
		local home, url = ...
		vim.env.HOME = home
		vim.env.ANTHROPIC_BASE_URL = url
		vim.env.ANTHROPIC_API_KEY = "test"
		for _, k in ipairs({ "DISABLE_TELEMETRY", "DISABLE_AUTOUPDATER", "DISABLE_ERROR_REPORTING", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC" }) do
			vim.env[k] = "1"
		end
	`, nil, home, api.URL)
	c.send("what is in @secret.txt ?")
	if n := c.lastNote(); !strings.Contains(n.Msg, "mentions @secret.txt, which the rule Read(secret.txt) keeps from the model") {
		t.Fatalf("a denied mention: last notification %q", n.Msg)
	}
	if c.runs() != 0 || strings.Contains(c.text(), "## Assistant") {
		t.Fatalf("a denied mention started a run:\n%s", c.text())
	}
	c.send("what does @public.py print?")
	c.waitRuns(1)
	if !api.Received("PUBLIC-0815") {
		t.Error("the allowed mention's content never reached the API")
	}
	if api.Received("TOPSECRET-4711") {
		t.Error("the denied file's content reached the API")
	}
	if !strings.Contains(c.lastReply(), "It prints a number.") {
		t.Errorf("reply:\n%s", c.lastReply())
	}
}
