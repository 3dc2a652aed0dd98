package run_test

import (
	"bytes"
	"context"
	"errors"
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
			var out bytes.Buffer
			r := &run.Runner{Backend: be, Engine: tt.eng}
			if err := r.Run(context.Background(), strings.NewReader(`{"type":"prompt","text":"x"}`+"\n"), &out); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			if v := <-got; v.Allow || v.Message == "" {
				t.Errorf("verdict = %+v, want a deny with a reason", v)
			}
		})
	}
}
