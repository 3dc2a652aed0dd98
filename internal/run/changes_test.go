package run_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vibing/internal/changes"
	"vibing/internal/run"
	"vibing/internal/session"
)

// call is one tool call of a scripted turn: asked, then, when allowed, its
// effect on the files is made (as the CLI would) before its result.
type call struct {
	tool   string
	input  map[string]any
	effect func()
}

// fileBackend plays calls one after another, each waiting for its verdict,
// then ends the turn with a result.
type fileBackend struct {
	events   chan run.Event
	calls    []call
	verdicts []run.Verdict
}

func (b *fileBackend) Start(context.Context, run.Turn) (run.Conn, error) {
	go func() {
		defer close(b.events)
		for i, c := range b.calls {
			id := "tu" + string(rune('1'+i))
			got := make(chan run.Verdict, 1)
			b.events <- run.Event{Kind: run.KindToolUse, ToolUseID: id, Tool: c.tool, Input: c.input}
			b.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "r" + id, ToolUseID: id, Tool: c.tool,
				Input: c.input, Reply: func(v run.Verdict) { got <- v }}}
			v := <-got
			b.verdicts = append(b.verdicts, v)
			if v.Allow && c.effect != nil {
				c.effect()
			}
			b.events <- run.Event{Kind: run.KindToolResult, ToolUseID: id, IsError: !v.Allow}
		}
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s-1"}
	}()
	return b, nil
}
func (b *fileBackend) Events() <-chan run.Event { return b.events }
func (b *fileBackend) Interrupt() error         { return nil }
func (b *fileBackend) Kill()                    {}

// denySecret allows every call but those that name a "secret" file.
type denySecret struct{ askBash }

func (denySecret) Decide(tool string, input map[string]any, _ string) session.Decision {
	if p, _ := input["file_path"].(string); strings.Contains(p, "secret") {
		return session.Decision{Decision: session.Deny, Reason: "secret files are denied", Rule: "Edit(secret*)"}
	}
	return session.Decision{Decision: session.Allow, Source: session.SourceMode}
}

func TestFilesChanged(t *testing.T) {
	type want struct {
		name, by, tool   string
		created, deleted bool
		nocopy           bool
		before           string // the snapshot's content ("" when created, or no copy)
	}
	tests := []struct {
		name  string
		files map[string]string
		calls func(dir string) []call
		// blocked: the chat's turns folder cannot be made
		blocked    bool
		want       []want
		wantAllows []bool
		wantFiles  map[string]string // the project after the turn
	}{
		{name: "an Edit", files: map[string]string{"a.txt": "old\n"},
			calls: func(d string) []call {
				return []call{{tool: "Edit", input: map[string]any{"file_path": filepath.Join(d, "a.txt"), "old_string": "old", "new_string": "new"},
					effect: func() { put(d, "a.txt", "new\n") }}}
			},
			want:       []want{{name: "a.txt", by: "edit", tool: "Edit", before: "old\n"}},
			wantAllows: []bool{true}},
		{name: "a Write of a new file, then a relative Edit of it", files: map[string]string{},
			calls: func(d string) []call {
				return []call{
					{tool: "Write", input: map[string]any{"file_path": filepath.Join(d, "n.txt"), "content": "1"}, effect: func() { put(d, "n.txt", "1") }},
					{tool: "Edit", input: map[string]any{"file_path": "n.txt"}, effect: func() { put(d, "n.txt", "2") }},
				}
			},
			want:       []want{{name: "n.txt", by: "edit", tool: "Write", created: true}},
			wantAllows: []bool{true, true}},
		{name: "files Bash writes and removes, and one it names but leaves", files: map[string]string{"log": "1\n", "old": "x", "keep": "k"},
			calls: func(d string) []call {
				return []call{{tool: "Bash", input: map[string]any{"command": "echo 2 >> log && rm old && cp keep keep2 && touch keep"},
					effect: func() { put(d, "log", "1\n2\n"); _ = os.Remove(filepath.Join(d, "old")); put(d, "keep2", "k") }}}
			},
			want: []want{{name: "old", by: "bash", tool: "Bash", deleted: true, before: "x"}, {name: "keep2", by: "bash", tool: "Bash", created: true},
				{name: "log", by: "bash", tool: "Bash", before: "1\n"}},
			wantAllows: []bool{true}},
		{name: "a file the agent may not read is listed without a copy", files: map[string]string{"secret.txt": "s"},
			calls: func(d string) []call {
				return []call{{tool: "Bash", input: map[string]any{"command": "echo t > secret.txt"}, effect: func() { put(d, "secret.txt", "t\n") }}}
			},
			want:       []want{{name: "secret.txt", by: "bash", tool: "Bash", nocopy: true}},
			wantAllows: []bool{true}},
		{name: "a denied Edit keeps nothing", files: map[string]string{"secret.txt": "s"},
			calls: func(d string) []call {
				return []call{{tool: "Edit", input: map[string]any{"file_path": filepath.Join(d, "secret.txt")}, effect: func() { put(d, "secret.txt", "!") }}}
			},
			wantAllows: []bool{false}, wantFiles: map[string]string{"secret.txt": "s"}},
		{name: "a copy that cannot be kept refuses the call", files: map[string]string{"a.txt": "old"}, blocked: true,
			calls: func(d string) []call {
				return []call{{tool: "Write", input: map[string]any{"file_path": filepath.Join(d, "a.txt"), "content": "new"}, effect: func() { put(d, "a.txt", "new") }}}
			},
			wantAllows: []bool{false}, wantFiles: map[string]string{"a.txt": "old"}},
		{name: "an allowed Edit that changed nothing is not listed", files: map[string]string{"a.txt": "same"},
			calls: func(d string) []call {
				return []call{{tool: "Edit", input: map[string]any{"file_path": filepath.Join(d, "a.txt")}, effect: func() { put(d, "a.txt", "same") }}}
			},
			wantAllows: []bool{true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			for n, text := range tt.files {
				put(root, n, text)
			}
			store := &changes.Store{Dir: changes.ChatDir(root, "chat-1.md")}
			if tt.blocked {
				put(root, "blocked", "")
				store.Dir = filepath.Join(root, "blocked", "chat-1")
			}
			be := &fileBackend{events: make(chan run.Event, 16), calls: tt.calls(root)}
			out := newCaller(1, `{"type":"prompt","text":"go"}`)
			r := &run.Runner{Backend: be, Engine: denySecret{}, Changes: store, Turn: run.Turn{Cwd: root}}
			if err := r.Run(context.Background(), out.in, out); err != nil {
				t.Fatalf("Run() = %v\n%s", err, out.String())
			}
			var allows []bool
			for _, v := range be.verdicts {
				allows = append(allows, v.Allow)
				if !v.Allow && tt.blocked && !strings.Contains(v.Message, "could not keep a copy") {
					t.Errorf("refusal %q does not say the copy could not be kept", v.Message)
				}
			}
			if !reflect.DeepEqual(allows, tt.wantAllows) {
				t.Errorf("verdicts allow = %v, want %v", allows, tt.wantAllows)
			}
			var got []want
			var types []string
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				var o run.Output
				if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
					t.Fatal(err)
				}
				types = append(types, o.Type)
				if o.Type != "files_changed" {
					continue
				}
				if o.Turn != 1 || filepath.Dir(o.Dir) != store.Dir {
					t.Errorf("files_changed turn %d dir %s, want turn 1 in %s", o.Turn, o.Dir, store.Dir)
				}
				for _, f := range o.Files {
					w := want{name: strings.TrimPrefix(f.Path, root+"/"), by: f.By, tool: f.Tool, created: f.Created, deleted: f.Deleted, nocopy: f.NoCopy}
					if f.Snapshot != "" {
						data, err := os.ReadFile(f.Snapshot)
						if err != nil {
							t.Errorf("snapshot of %s: %v", f.Path, err)
						}
						w.before = string(data)
					}
					got = append(got, w)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("files_changed = %+v, want %+v", got, tt.want)
			}
			if n := len(types); len(tt.want) > 0 && (n < 2 || types[n-2] != "files_changed" || types[n-1] != "result") {
				t.Errorf("events %v: want files_changed just before the result", types)
			}
			for n, text := range tt.wantFiles {
				if data, _ := os.ReadFile(filepath.Join(root, n)); string(data) != text {
					t.Errorf("%s = %q, want %q", n, data, text)
				}
			}
		})
	}
}

func put(dir, name, text string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		panic(err)
	}
}

// liveFiles is a live backend whose every message makes one allowed Edit
// that writes "v<message>" to a.txt.
type liveFiles struct {
	fileBackend
	dir  string
	turn int
}

func (b *liveFiles) Start(context.Context, run.Turn) (run.Conn, error) { return b, b.Prompt("") }

func (b *liveFiles) Prompt(string) error {
	b.turn++
	n := b.turn
	go func() {
		id := "edit" + string(rune('0'+n))
		got := make(chan run.Verdict, 1)
		b.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: id, ToolUseID: id, Tool: "Write",
			Input: map[string]any{"file_path": filepath.Join(b.dir, "a.txt")}, Reply: func(v run.Verdict) { got <- v }}}
		if v := <-got; v.Allow {
			put(b.dir, "a.txt", "v"+string(rune('0'+n)))
		}
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s-1"}
	}()
	return nil
}

func (b *liveFiles) EndInput() { close(b.events) }

// TestFilesChangedPerTurn: each message of a live process is a turn of its
// own, whose copies hold the file as the previous turn left it.
func TestFilesChangedPerTurn(t *testing.T) {
	root := t.TempDir()
	put(root, "a.txt", "v0")
	be := &liveFiles{fileBackend: fileBackend{events: make(chan run.Event, 16)}, dir: root}
	out := newCaller(2, `{"type":"prompt","text":"one"}`, `{"type":"prompt","text":"two"}`)
	r := &run.Runner{Backend: be, Engine: denySecret{}, Changes: &changes.Store{Dir: changes.ChatDir(root, "chat-1.md")}}
	if err := r.Run(context.Background(), out.in, out); err != nil {
		t.Fatalf("Run() = %v\n%s", err, out.String())
	}
	var befores []string
	dirs := map[string]bool{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var o run.Output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatal(err)
		}
		if o.Type != "files_changed" {
			continue
		}
		if len(o.Files) != 1 || o.Turn != len(befores)+1 {
			t.Fatalf("files_changed %+v, want one file of turn %d", o, len(befores)+1)
		}
		data, _ := os.ReadFile(o.Files[0].Snapshot)
		befores = append(befores, string(data))
		dirs[o.Dir] = true
	}
	if want := []string{"v0", "v1"}; !reflect.DeepEqual(befores, want) || len(dirs) != 2 {
		t.Errorf("pre-turn copies %v in %d folders, want %v in 2", befores, len(dirs), want)
	}
}
