package e2e

import (
	"testing"

	"vibing/internal/fakeapi"
	"vibing/internal/preview"
	"vibing/internal/run"
)

// TestRealQuestionAnswered: the agent's AskUserQuestion shows its questions
// and options; the person's answers reach the model through the real CLI
// (updatedInput.answers), and declining says so.
func TestRealQuestionAnswered(t *testing.T) {
	t.Parallel()
	qs := []any{
		map[string]any{"question": "Which color?", "header": "Color", "multiSelect": false,
			"options": []any{map[string]any{"label": "Red", "description": "warm"}, map[string]any{"label": "Blue", "description": "cool"}}},
		map[string]any{"question": "Which sizes?", "header": "Sizes", "multiSelect": true,
			"options": []any{map[string]any{"label": "S", "description": "small"}, map[string]any{"label": "M", "description": "medium"}, map[string]any{"label": "L", "description": "large"}}},
	}
	tests := []struct {
		name    string
		answer  run.Input
		receive string
	}{
		{"answered", run.Input{Decision: run.AllowOnce, Answers: map[string]string{"Which color?": "Blue", "Which sizes?": "S, L"}},
			`\"Which color?\"=\"Blue\", \"Which sizes?\"=\"S, L\"`},
		{"in free text", run.Input{Decision: run.AllowOnce, Answers: map[string]string{"Which color?": "green, like grass", "Which sizes?": "M"}},
			`\"Which color?\"=\"green, like grass\"`},
		{"declined with a reason", run.Input{Decision: run.DenyOnce, Reason: "pick yourself"}, "pick yourself"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t, "", "", fakeapi.Turn{Tools: []fakeapi.ToolCall{{Name: "AskUserQuestion", Input: map[string]any{"questions": qs}}}})
			var req run.Output
			res := w.run(func(o run.Output, send func(run.Input)) {
				if o.Type == "approval_request" {
					req = o
					a := tt.answer
					a.Type, a.ID = "approval_response", o.ID
					send(a)
				}
			})
			if res.code != 0 {
				t.Fatalf("exit %d; stderr %s", res.code, res.stderr)
			}
			if req.Preview == nil || req.Preview.Kind != preview.KindQuestions || len(req.Preview.Questions) != 2 ||
				req.Preview.Questions[0].Options[1].Label != "Blue" || !req.Preview.Questions[1].MultiSelect {
				t.Fatalf("preview = %+v, want the two questions with their options", req.Preview)
			}
			if req.Detail != "Which color? (+ more questions)" || req.SuggestedRule != "" || len(req.Options) != 2 {
				t.Errorf("detail %q, suggested %q, options %v: want the question, no rule, answer or decline", req.Detail, req.SuggestedRule, req.Options)
			}
			// the tool_result in the request body, a JSON string: its quotes escaped
			if !w.api.Received(tt.receive) {
				t.Errorf("the model never got %q", tt.receive)
			}
			if w.api.Received("did not answer") && tt.answer.Decision == run.AllowOnce {
				t.Error("the model was told the questions were not answered")
			}
		})
	}
}
