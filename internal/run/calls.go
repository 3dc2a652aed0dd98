package run

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"vibing/internal/command"
	"vibing/internal/preview"
)

// What a tool call is called: its key for reusing a verdict, the digest
// audit rows keep of an approved input, and how it is described and shown.

// callKey names one tool call for reusing its verdict: its tool_use_id with
// a fingerprint of its tool and input ("" when the backend gave no id).
func callKey(p *Permission) string {
	if p.ToolUseID == "" {
		return ""
	}
	if p.key == "" {
		p.key = p.ToolUseID + ":" + callPrint(p.Tool, p.Input)
	}
	return p.key
}

// callPrint is a short fingerprint of a tool and its input (JSON, keys
// sorted): calls that differ in either never share a verdict or an audit
// row.
func callPrint(tool string, input map[string]any) string {
	b, err := json.Marshal(struct {
		Tool  string         `json:"tool"`
		Input map[string]any `json:"input"`
	}{tool, input})
	if err != nil {
		// not JSON: a fingerprint no other input shares, so never reused
		b = fmt.Appendf(nil, "%p", input)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// InputHash is the hex SHA-256 of a tool input's JSON (keys sorted), the
// fingerprint audit rows keep of what an approval let run.
func InputHash(input map[string]any) string {
	b, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Describe names a tool call for a person: "Bash (npm install)".
func Describe(tool string, input map[string]any) string {
	return preview.Describe(tool, input, "")
}

func (s *state) env() command.Env {
	env := s.r.Env
	if env.Cwd == "" {
		env.Cwd = s.r.Turn.Cwd
	}
	return env
}

func (s *state) describe(tool string, input map[string]any) string {
	return preview.Describe(tool, input, s.env().Cwd)
}

func (s *state) detail(tool string, input map[string]any) string {
	return preview.Detail(tool, input, s.env().Cwd)
}

// preview builds what the person sees of the call; a failure shows the
// input as JSON rather than nothing.
func (s *state) preview(p *Permission) (pv *preview.Preview) {
	defer func() {
		if e := recover(); e != nil {
			pv = &preview.Preview{Kind: preview.KindJSON, Problem: fmt.Sprintf("the preview failed: %v", e)}
		}
	}()
	env := s.env()
	if p.Cwd != "" {
		env.Shell = []string{p.Cwd}
	}
	v := preview.Build(p.Tool, p.Input, env)
	if pd, ok := s.r.Engine.(PartDecider); ok && v.Kind == preview.KindCommand {
		for _, part := range pd.DecideParts(p.Tool, p.Input, p.Cwd) {
			v.Commands = append(v.Commands, preview.CommandVerdict{Command: part.Command, Decision: part.Decision.Decision.String(),
				Rule: part.Rule, Source: part.Source, Reason: part.Reason})
		}
	}
	return &v
}
