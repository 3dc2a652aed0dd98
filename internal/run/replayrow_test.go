package run_test

import (
	"context"
	"testing"

	"vibing/internal/command"
	"vibing/internal/run"
	"vibing/internal/runtest"
)

// resumedBash is askBash in a resumed session.
type resumedBash struct{ askBash }

func (resumedBash) Resumed() bool { return true }

// Each row says whether its call was decided in a resumed session and the
// engine's working directory, so audit --what-if replays it as decided.
func TestRowsRecordResumedAndCwd(t *testing.T) {
	tests := []struct {
		name    string
		eng     run.Engine
		env     command.Env
		turnCwd string
		resumed bool
		cwd     string
	}{
		{"fresh, the engine's folder", askBash{}, command.Env{Cwd: "/proj/one"}, "/elsewhere", false, "/proj/one"},
		{"resumed, the engine's folder", resumedBash{}, command.Env{Cwd: "/proj/two"}, "", true, "/proj/two"},
		{"no engine folder: the turn's", resumedBash{}, command.Env{}, "/proj/three", true, "/proj/three"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &chanBackend{events: make(chan run.Event, 4)}
			got := make(chan run.Verdict, 1)
			be.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: "t1", Tool: "Bash",
				Input: map[string]any{"command": "ls"}, Reply: func(v run.Verdict) { got <- v }}}
			be.events <- run.Event{Kind: run.KindResult}
			close(be.events)
			out := newCaller(1, `{"type":"prompt","text":"x"}`)
			rec := &runtest.Audit{}
			r := &run.Runner{Backend: be, Engine: tt.eng, Audit: rec, Env: tt.env, Turn: run.Turn{Cwd: tt.turnCwd}}
			if err := r.Run(context.Background(), out.in, out); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			if v := <-got; !v.Allow {
				t.Fatalf("verdict = %+v, want allow", v)
			}
			if len(rec.Rows()) != 1 {
				t.Fatalf("rows = %+v, want one", rec.Rows())
			}
			if e := rec.Rows()[0]; e.Resumed == nil || *e.Resumed != tt.resumed || e.Cwd != tt.cwd {
				t.Errorf("row resumed=%v cwd=%q, want resumed=%v cwd=%q", e.Resumed != nil && *e.Resumed, e.Cwd, tt.resumed, tt.cwd)
			}
		})
	}
}
