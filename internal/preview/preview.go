package preview

import (
	"encoding/json"
	"fmt"
	"strings"

	"vibing/internal/command"
	"vibing/internal/tools"
)

// Kinds of preview.
const (
	KindDiff    = "diff"     // Edit, MultiEdit, Write over a file, NotebookEdit
	KindNewFile = "new_file" // Write (or Edit with an empty old_string) of a file that does not exist
	KindBinary  = "binary"   // content that is not text: named, never dumped
	KindCommand = "command"  // Bash (and any tool whose input carries a command)
	KindFetch   = "fetch"    // WebFetch
	KindJSON    = "json"     // every other tool: the input as indented JSON

	KindQuestions = "questions" // AskUserQuestion: the agent's questions and their options
)

// Bounds: a preview stays small enough to send and draw at once.
const (
	MaxFileBytes  = 8 << 20 // a file larger than this is not read
	MaxDiffLines  = 5000    // lines of unified diff kept
	MaxProposed   = 2 << 20 // the proposed file is sent for review up to this size
	HeadLines     = 20      // lines of a new file shown
	MaxHeadLine   = 300     // characters per head line
	MaxEffects    = 40      // effects listed for one command line
	maxDetailJSON = 300     // characters of compact JSON in a detail
)

// Preview is what a person sees of a tool call before approving it
// (SPEC §10). Only the fields of its kind are set.
type Preview struct {
	Kind string `json:"kind"`

	// files
	Path     string `json:"path,omitempty"`     // as the person knows it: relative to the working directory when inside it
	Target   string `json:"target,omitempty"`   // where the path leads when it goes through a symlink
	Unified  string `json:"unified,omitempty"`  // --- a/… +++ b/… @@ …, 3 lines of context
	Added    int    `json:"added,omitempty"`    // lines added
	Removed  int    `json:"removed,omitempty"`  // lines removed
	Problem  string `json:"problem,omitempty"`  // the edit cannot apply as asked (old_string not found, not unique, …)
	Lines    int    `json:"lines,omitempty"`    // new_file: lines of content
	Bytes    int64  `json:"bytes,omitempty"`    // new_file, binary: bytes of content
	Head     string `json:"head,omitempty"`     // new_file: its first lines
	Proposed string `json:"proposed,omitempty"` // Edit, MultiEdit: the whole file as the edit leaves it (for side-by-side review)

	// Bash
	Command     string   `json:"command,omitempty"`
	Description string   `json:"description,omitempty"` // the agent's own words for the call
	Effects     []string `json:"effects,omitempty"`
	// Commands is the verdict on each simple command of a compound line,
	// as if it ran alone (filled by the runner, which has the rules).
	Commands []CommandVerdict `json:"commands,omitempty"`

	// WebFetch
	Host string `json:"host,omitempty"`
	URL  string `json:"url,omitempty"`

	// AskUserQuestion
	Questions []Question `json:"questions,omitempty"`

	// other tools
	JSON string `json:"json,omitempty"`

	Notes     []string `json:"notes,omitempty"`     // CRLF shown as LF, a symlink, a cut diff, …
	Truncated bool     `json:"truncated,omitempty"` // the unified diff or head was cut
}

// CommandVerdict is the decision on one simple command of a Bash line.
type CommandVerdict struct {
	Command  string `json:"command"`
	Decision string `json:"decision"`         // allow | ask | deny
	Rule     string `json:"rule,omitempty"`   // the rule that decided, "" for the mode
	Source   string `json:"source,omitempty"` // where the decision came from (allow_list, mode, …)
	Reason   string `json:"reason,omitempty"`
}

// Build builds the preview of one tool call, reading the files it would
// change as they are now. It never fails: what cannot be shown is said in
// Problem or Notes.
func Build(tool string, input map[string]any, env command.Env) Preview {
	c := command.Prepare(tool, input, env)
	switch c.Tool {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return fileChange(c)
	case "AskUserQuestion":
		return questions(input)
	case "WebFetch":
		p := Preview{Kind: KindFetch, Host: c.Host, URL: c.URL}
		if c.Err != nil {
			p.Problem = c.Err.Error()
		}
		return p
	}
	if cmd, ok := commandOf(c.Tool, input); ok {
		if c.Tool != "Bash" {
			c = command.Prepare("Bash", map[string]any{"command": cmd}, env)
		}
		return bashPreview(c, input)
	}
	return Preview{Kind: KindJSON, JSON: indentJSON(input)}
}

func commandOf(tool string, input map[string]any) (string, bool) {
	if tool == "Bash" {
		s, ok := input["command"].(string)
		return s, ok
	}
	return tools.CommandOf(tool, input)
}

func indentJSON(v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// Detail names what a tool call acts on, in one string: the command, the
// path (relative to cwd when inside it), the URL, the query, the pattern, or
// the compact JSON input. It is the one description the runner, the audit
// and the editor use.
func Detail(tool string, input map[string]any, cwd string) string {
	if s, ok := commandOf(tool, input); ok && s != "" {
		return s
	}
	if tool == "AskUserQuestion" {
		if s := firstQuestion(input); s != "" {
			return s
		}
	}
	for _, k := range []string{"url", "query"} {
		if s, ok := input[k].(string); ok && s != "" {
			return s
		}
	}
	for _, k := range []string{"file_path", "notebook_path", "path"} {
		if s, ok := input[k].(string); ok && s != "" {
			return relPath(s, cwd)
		}
	}
	if s, ok := input["pattern"].(string); ok && s != "" {
		return s
	}
	if len(input) == 0 {
		return ""
	}
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	if s := string(b); len(s) > maxDetailJSON {
		return s[:maxDetailJSON] + "…"
	}
	return string(b)
}

// Describe names a tool call for a person: "Bash (npm install)".
func Describe(tool string, input map[string]any, cwd string) string {
	if d := Detail(tool, input, cwd); d != "" {
		if len(d) > 200 {
			d = d[:200] + "…"
		}
		return fmt.Sprintf("%s (%s)", tool, d)
	}
	return tool
}

// relPath shows p relative to cwd when it lies inside it.
func relPath(p, cwd string) string {
	if cwd == "" {
		return p
	}
	abs := command.ResolvePath(p, command.Env{Cwd: cwd}).Abs
	if abs == cwd {
		return "."
	}
	if r, ok := strings.CutPrefix(abs, strings.TrimSuffix(cwd, "/")+"/"); ok {
		return r
	}
	return p
}
