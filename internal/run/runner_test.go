package run_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"vibing/internal/run"
	"vibing/internal/session"
)

func TestDescribe(t *testing.T) {
	tests := []struct {
		tool  string
		input map[string]any
		want  string
	}{
		{"Bash", map[string]any{"command": "npm install"}, "Bash (npm install)"},
		{"Read", map[string]any{"file_path": "/etc/passwd"}, "Read (/etc/passwd)"},
		{"WebFetch", map[string]any{"url": "https://x.org", "prompt": "p"}, "WebFetch (https://x.org)"},
		{"Task", map[string]any{}, "Task"},
		{"TodoWrite", map[string]any{"n": 1}, `TodoWrite ({"n":1})`},
	}
	for _, tt := range tests {
		if got := run.Describe(tt.tool, tt.input); got != tt.want {
			t.Errorf("Describe(%q, %v) = %q, want %q", tt.tool, tt.input, got, tt.want)
		}
	}
}

func TestNoPromptIsAnError(t *testing.T) {
	var out bytes.Buffer
	r := &run.Runner{Backend: &chanBackend{events: make(chan run.Event)}, Engine: askBash{}}
	err := r.Run(context.Background(), strings.NewReader(`{"type":"cancel"}`+"\n"), &out)
	if !errors.Is(err, run.ErrNoPrompt) {
		t.Errorf("Run() = %v, want ErrNoPrompt", err)
	}
	if got := strings.Count(out.String(), `"type":"error"`); got != 1 {
		t.Errorf("stdout %q, want exactly one error event", out.String())
	}
}

func TestUnknownBackend(t *testing.T) {
	if _, err := run.NewBackend("nope", run.BackendOptions{}); !errors.Is(err, run.ErrUnknownBackend) {
		t.Errorf("NewBackend(nope) = %v, want ErrUnknownBackend", err)
	}
}

type panicky struct{ askBash }

func (panicky) Decide(string, map[string]any, string) session.Decision { panic("boom") }

type oddEngine struct{ askBash }

func (oddEngine) Decide(string, map[string]any, string) session.Decision {
	return session.Decision{Decision: "maybe"}
}

func TestFailingPipelineDenies(t *testing.T) {
	tests := []struct {
		name string
		eng  run.Engine
	}{
		{"panic", panicky{}},
		{"unknown decision", oddEngine{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &chanBackend{events: make(chan run.Event, 4)}
			got := make(chan run.Verdict, 1)
			be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{Tool: "Bash",
				Input: map[string]any{"command": "ls"}, Reply: func(v run.Verdict) { got <- v }}}
			be.events <- run.Event{Kind: run.KindResult}
			close(be.events)
			out := newCaller(1, `{"type":"prompt","text":"x"}`)
			r := &run.Runner{Backend: be, Engine: tt.eng}
			if err := r.Run(context.Background(), out.in, out); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			if v := <-got; v.Allow || v.Message == "" {
				t.Errorf("verdict = %+v, want a deny with a reason", v)
			}
		})
	}
}

// caller is the stdin and stdout of a run whose caller sends lines and
// closes stdin once it read the results it waits for (stdin closing while
// a turn runs ends the run: the editor is gone). Its Buffer holds stdout.
type caller struct {
	bytes.Buffer
	in      *io.PipeReader
	inW     *io.PipeWriter
	results int
}

func newCaller(results int, lines ...string) *caller {
	c := &caller{results: results}
	c.in, c.inW = io.Pipe()
	go func() {
		for _, l := range lines {
			if _, err := c.inW.Write([]byte(l + "\n")); err != nil {
				return
			}
		}
	}()
	return c
}

func (c *caller) Write(p []byte) (int, error) {
	if c.results -= bytes.Count(p, []byte(`"type":"result"`)); c.results <= 0 {
		c.inW.Close()
	}
	return c.Buffer.Write(p)
}
