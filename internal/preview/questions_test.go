package preview_test

import (
	"testing"

	"vibing/internal/command"
	"vibing/internal/preview"
)

func TestQuestions(t *testing.T) {
	t.Parallel()
	opt := func(l, d string) map[string]any { return map[string]any{"label": l, "description": d} }
	tests := []struct {
		name    string
		input   map[string]any
		kind    string
		count   int
		detail  string
		problem string
	}{
		{"one question", map[string]any{"questions": []any{map[string]any{"question": "Which color?", "header": "Color",
			"options": []any{opt("Red", "warm"), opt("Blue", "cool")}}}}, preview.KindQuestions, 1, "Which color?", ""},
		{"two, one multi-select", map[string]any{"questions": []any{
			map[string]any{"question": "A?", "options": []any{opt("x", ""), opt("y", "")}},
			map[string]any{"question": "B?", "multiSelect": true, "options": []any{opt("p", ""), opt("q", "")}}}},
			preview.KindQuestions, 2, "A? (+ more questions)", ""},
		{"no questions", map[string]any{"questions": []any{}}, preview.KindJSON, 0, `{"questions":[]}`, "the agent asked no question"},
		{"a question without text", map[string]any{"questions": []any{map[string]any{"options": []any{}}}}, preview.KindJSON, 0, "", "the agent's question has no text"},
	}
	for _, tt := range tests {
		p := preview.Build("AskUserQuestion", tt.input, command.Env{Cwd: "/w"})
		if p.Kind != tt.kind || len(p.Questions) != tt.count || p.Problem != tt.problem {
			t.Errorf("%s: Build = %+v, want kind %s, %d questions, problem %q", tt.name, p, tt.kind, tt.count, tt.problem)
		}
		if d := preview.Detail("AskUserQuestion", tt.input, "/w"); tt.detail != "" && d != tt.detail {
			t.Errorf("%s: Detail = %q, want %q", tt.name, d, tt.detail)
		}
	}
	p := preview.Build("AskUserQuestion", tests[1].input, command.Env{Cwd: "/w"})
	if q := p.Questions[1]; !q.MultiSelect || q.Question != "B?" || len(q.Options) != 2 || q.Options[1].Label != "q" {
		t.Errorf("second question = %+v", q)
	}
}
