package demo

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Step is one step of the script: text to stream, then an optional tool call.
type Step struct {
	Text string
	Call *Call
}

// Call is a scripted tool call. Input builds the tool input just before the
// call, from the project as it is then (so repeated demos keep working).
type Call struct {
	Tool     string
	Input    func(cwd string) map[string]any
	NeverRun bool // refused by the demo itself even when the pipeline allows it
}

// The demo project's files and the demo's commands.
const (
	ReadmeFile   = "README.md"
	HelloFile    = "hello.py"
	BashCommand  = "python3 hello.py"
	AgainCommand = "python3 hello.py --again"
	SudoCommand  = "sudo rm -rf /tmp/vibing-demo-never"
	FetchURL     = "https://example.com/"
)

var againWord = regexp.MustCompile(`(?i)\bagain\b`)

// Script returns the steps for a prompt: the full tour, or the short one
// (one edit, the Bash of the tour and a new one) when the prompt contains
// the word "again".
func Script(prompt string) []Step {
	if againWord.MatchString(prompt) {
		return againScript
	}
	return fullScript
}

var fullScript = []Step{
	{Text: "Hi! I am the vibing **demo** agent, a scripted stand-in for Claude: no API key, no network. " +
		"The tool calls below are real, though, and every one of them goes through this chat's permission rules.\n\n" +
		"First I'll read the README. `Read(**)` (reading inside the project) is in this chat's allow list, so it runs without asking.\n",
		Call: &Call{Tool: "Read", Input: fileInput(ReadmeFile)}},
	{Text: "\nNext I'll edit `hello.py`. Edits are not in the allow list and the mode is `default`, " +
		"so you are asked first. Try allow once, deny, or always allow.\n",
		Call: &Call{Tool: "Edit", Input: editInput(`greet("world")`, `greet("vibing")`)}},
	{Text: "\nNow I'll run `hello.py`. A command that only reads inside the project (`cat hello.py`) would run " +
		"without asking, like a Read; running a program may do anything, so `Bash` asks.\n",
		Call: &Call{Tool: "Bash", Input: bashInput(BashCommand, "Run hello.py")}},
	{Text: "\nHere is something no agent should be allowed to do: `sudo rm -rf …`. The default deny rules " +
		"refuse any `sudo` in every mode, without asking you (and the demo would not run it anyway).\n",
		Call: &Call{Tool: "Bash", Input: bashInput(SudoCommand, "Remove a folder as root"), NeverRun: true}},
	{Text: "\nLast, a web fetch. `WebFetch` is in this chat's ask list. The demo never touches the network: " +
		"an allowed fetch returns a simulated page.\n",
		Call: &Call{Tool: "WebFetch", Input: func(string) map[string]any {
			return map[string]any{"url": FetchURL, "prompt": "What is this page about?"}
		}}},
	{Text: "\nOne more change: a new version of `README.md`, written whole with `Write`. The block shows the change as a " +
		"diff against the file as it is now; press `d` to review it side by side in a new tab, where you may " +
		"edit the proposal and approve your version with `y` there.\n",
		Call: &Call{Tool: "Write", Input: writeInput()}},
	{Text: "\nThat's the tour (a demo: nothing was sent to a model). Things to try next: `/allow`, `/ask` and " +
		"`/deny` to change the rules, `/permissions` for the builder, `:VibingPermissions` to see them in plain " +
		"words, `:VibingAudit` for the log of every decision above. Under this answer, the Modified files " +
		"list names what the turn changed: `gd` on a line shows that file's diff, `gr` puts it back as it " +
		"was, `gR` all of them; `<CR>` on a tool line shows its whole output. Send another message with the " +
		"word \"again\": the same agent answers it in this session and asks you again where your answers so " +
		"far do not cover a call.\n"},
}

var againScript = []Step{
	{Text: "(demo) Again, in the same session: this message went to the same demo agent as the first one " +
		"(one live agent per chat), so where your rules and this session's grants do not cover a call, " +
		"you are asked again. First an edit:\n",
		Call: &Call{Tool: "Edit", Input: editInput(`"Hello, "`, `"Hi again, "`)}},
	{Text: "\nAnd the program as it is now:\n",
		Call: &Call{Tool: "Bash", Input: bashInput(BashCommand, "Run hello.py")}},
	{Text: "\nA command this session has not run yet:\n",
		Call: &Call{Tool: "Bash", Input: bashInput(AgainCommand, "Run hello.py again")}},
	{Text: "\nDone (a demo: nothing was sent to a model).\n"},
}

func fileInput(name string) func(string) map[string]any {
	return func(cwd string) map[string]any {
		return map[string]any{"file_path": filepath.Join(cwd, name)}
	}
}

func bashInput(command, description string) func(string) map[string]any {
	return func(string) map[string]any {
		return map[string]any{"command": command, "description": description}
	}
}

// editInput edits hello.py from a to b, or back from b to a when a is gone
// (so running the demo again still makes a real change).
func editInput(a, b string) func(string) map[string]any {
	return func(cwd string) map[string]any {
		path := filepath.Join(cwd, HelloFile)
		old, repl := a, b
		if data, err := os.ReadFile(path); err == nil && !strings.Contains(string(data), a) && strings.Contains(string(data), b) {
			old, repl = b, a
		}
		return map[string]any{"file_path": path, "old_string": old, "new_string": repl}
	}
}

// notes is the section the demo's Write adds to README.md (or takes out
// again when it is there, so every demo run proposes a real change).
const notes = "\n## Notes from the demo agent\n\n- `hello.py` greets whoever you name.\n- Run it with `python3 hello.py`.\n"

// writeInput proposes README.md with notes added, or removed when present.
func writeInput() func(string) map[string]any {
	return func(cwd string) map[string]any {
		path := filepath.Join(cwd, ReadmeFile)
		data, _ := os.ReadFile(path)
		text := string(data)
		if strings.Contains(text, notes) {
			text = strings.Replace(text, notes, "", 1)
		} else {
			text += notes
		}
		return map[string]any{"file_path": path, "content": text}
	}
}
