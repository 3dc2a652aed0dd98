package demo_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/run"
)

var update = flag.Bool("u", false, "rewrite the golden transcripts in testdata/")

// transcript renders a turn's events as JSON Lines with what changes from run
// to run replaced (session id, project folder, durations) and consecutive
// text chunks joined, so it can be compared with a golden file.
func transcript(tu turn, dir, sid string) string {
	var b strings.Builder
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			line, _ := json.Marshal(run.Output{Type: "text", Text: text.String()})
			b.Write(line)
			b.WriteByte('\n')
			text.Reset()
		}
	}
	for _, e := range tu.events {
		if e.Type == "text" {
			text.WriteString(e.Text)
			continue
		}
		flush()
		if e.DurationMS != nil {
			e.DurationMS = new(int64)
		}
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	flush()
	s := strings.ReplaceAll(b.String(), dir, "$PROJECT")
	s = strings.ReplaceAll(s, strings.TrimPrefix(sid, "demo-"), "SESSION")
	return s
}

func TestTourTranscript(t *testing.T) {
	tests := []struct {
		name    string
		prompts []string // one live agent answers them in turn
		answers map[string]run.Answer
	}{
		{"tour-allow-once", []string{tourPrompt}, nil},
		{"again-deny-once", []string{"again"}, map[string]run.Answer{"Edit": run.DenyOnce, "Bash": run.DenyOnce}},
		// the second message asks again, except for what the first
		// message's session grant covers
		{"conversation", []string{tourPrompt, "again"}, map[string]run.Answer{"Bash": run.AllowForSession}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			tu := converse(t, p, tt.prompts, answers(tt.answers), runOpts{})
			if tu.err != nil {
				t.Fatalf("Run() = %v", tu.err)
			}
			got := transcript(tu, p.dir, tu.events[0].SessionID)
			path := filepath.Join("testdata", tt.name+".jsonl")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -u to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript differs from %s (go test -u to refresh):\n%s", path, got)
			}
		})
	}
}
