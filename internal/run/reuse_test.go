package run_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"vibing/internal/audit"
	"vibing/internal/run"
	"vibing/internal/session"
)

// rmDeny is askBash that also denies every command starting with "rm",
// and names the tool in the action.
type rmDeny struct{ askBash }

func (rmDeny) Decide(tool string, input map[string]any, cwd string) session.Decision {
	d := askBash{}.Decide(tool, input, cwd)
	cmd, _ := input["command"].(string)
	if strings.HasPrefix(cmd, "rm") {
		d = session.Decision{Decision: session.Deny, Rule: "Bash(rm:*)", Source: session.SourceDenyList, Reason: "rm is denied"}
	}
	d.Action = "tool:" + tool + ":" + cmd
	return d
}

// reuseCall is one permission request: its tool_use_id, tool and command.
type reuseCall struct{ id, tool, cmd string }

// reuseBackend asks for its calls one at a time, each once the previous one
// is answered (together: all at once, as two hooks of one call might).
type reuseBackend struct {
	calls    []reuseCall
	together bool
	sent     chan struct{} // closed once every request was handled by the runner
	events   chan run.Event

	mu       sync.Mutex
	verdicts []run.Verdict
}

func (b *reuseBackend) Start(context.Context, run.Turn) (run.Conn, error) {
	b.events = make(chan run.Event) // unbuffered: a send returns once the runner took the event
	b.verdicts = make([]run.Verdict, len(b.calls))
	go func() {
		defer close(b.events)
		b.events <- run.Event{Kind: run.KindSession, SessionID: "s1"}
		var wg sync.WaitGroup
		for i, c := range b.calls {
			wg.Add(1)
			got := make(chan struct{})
			b.events <- run.Event{Kind: run.KindPermission, Permission: &run.Permission{ID: fmt.Sprintf("req-%d", i), ToolUseID: c.id,
				Tool: c.tool, Input: map[string]any{"command": c.cmd}, Reply: func(v run.Verdict) {
					b.mu.Lock()
					b.verdicts[i] = v
					b.mu.Unlock()
					close(got)
					wg.Done()
				}}}
			if !b.together {
				<-got
			}
		}
		// the runner handles one event before it takes the next: once this
		// one is taken, every request above has been handled
		b.events <- run.Event{Kind: run.KindText, Text: "sent"}
		close(b.sent)
		wg.Wait()
		b.events <- run.Event{Kind: run.KindResult, SessionID: "s1"}
	}()
	return b, nil
}
func (b *reuseBackend) Events() <-chan run.Event { return b.events }
func (b *reuseBackend) Interrupt() error         { return nil }
func (b *reuseBackend) Kill()                    {}

// gatedRecorder writes to a real database once gate is closed, so that
// allowed calls wait for their rows while the next requests come.
type gatedRecorder struct {
	gate chan struct{}
	rec  dbRecorder
}

func (g gatedRecorder) Record(ctx context.Context, e run.AuditEntry) error {
	<-g.gate
	return g.rec.Record(ctx, e)
}

// A verdict is reused for a tool_use_id only when the tool and input are
// the ones decided: a CLI (or a hook that rewrites the input) asking again
// for the same id with another input gets a decision of its own, and both
// decisions are audit rows.
func TestVerdictReusedOnlyForTheSameInput(t *testing.T) {
	tests := []struct {
		name     string
		calls    []reuseCall
		together bool
		edit     string   // approvals are answered allow_once with this command as the edited input
		want     []string // the verdict of each call: allow or deny
		rows     []string // "decision action" of the audit rows, oldest first
		asked    int      // approvals asked
	}{
		{"same id, other input", []reuseCall{{"t1", "Bash", "ls"}, {"t1", "Bash", "rm -rf victim"}}, false, "",
			[]string{"allow", "deny"}, []string{"allow tool:Bash:ls", "deny tool:Bash:rm -rf victim"}, 0},
		{"same id, same input", []reuseCall{{"t1", "Bash", "ls"}, {"t1", "Bash", "ls"}}, false, "",
			[]string{"allow", "allow"}, []string{"allow tool:Bash:ls"}, 0},
		{"same id, other tool", []reuseCall{{"t1", "Bash", "ls"}, {"t1", "Task", "ls"}}, false, "",
			[]string{"allow", "allow"}, []string{"allow tool:Bash:ls", "allow tool:Task:ls"}, 0},
		{"approved, then the same id with other input", []reuseCall{{"t1", "Bash", "ask deploy"}, {"t1", "Bash", "rm -rf victim"}}, false, "",
			[]string{"allow", "deny"}, []string{"ask_approved tool:Bash:ask deploy", "deny tool:Bash:rm -rf victim"}, 1},
		{"approved, then the same id asking for more", []reuseCall{{"t1", "Bash", "ask deploy"}, {"t1", "Bash", "ask deploy --force"}}, false, "",
			[]string{"allow", "allow"}, []string{"ask_approved tool:Bash:ask deploy", "ask_approved tool:Bash:ask deploy --force"}, 2},
		{"approved with an edit, then the edited input", []reuseCall{{"t1", "Bash", "ask deploy"}, {"t1", "Bash", "ask deploy --dry-run"}}, false, "ask deploy --dry-run",
			[]string{"allow", "allow"}, []string{"ask_approved tool:Bash:ask deploy"}, 1},
		{"at once, other input", []reuseCall{{"t1", "Bash", "ls"}, {"t1", "Bash", "rm -rf victim"}}, true, "",
			[]string{"allow", "deny"}, []string{"allow tool:Bash:ls", "deny tool:Bash:rm -rf victim"}, 0},
		{"at once, same input", []reuseCall{{"t1", "Bash", "ls"}, {"t1", "Bash", "ls"}}, true, "",
			[]string{"allow", "allow"}, []string{"allow tool:Bash:ls"}, 0},
		{"at once, an asked call asked again", []reuseCall{{"t1", "Bash", "ask deploy"}, {"t1", "Bash", "ask deploy"}}, true, "",
			[]string{"allow", "allow"}, []string{"ask_approved tool:Bash:ask deploy"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.sqlite")
			db, err := audit.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			be := &reuseBackend{calls: tt.calls, together: tt.together, sent: make(chan struct{})}
			rec := gatedRecorder{gate: make(chan struct{}), rec: dbRecorder{db}}
			if tt.together {
				go func() { <-be.sent; close(rec.gate) }()
			} else {
				close(rec.gate)
			}
			r := &run.Runner{Backend: be, Engine: rmDeny{}, Audit: rec, ApprovalTimeout: 5 * time.Second}
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			var approvals []string
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(outR)
				for sc.Scan() {
					var o run.Output
					_ = json.Unmarshal(sc.Bytes(), &o)
					if o.Type != "approval_request" {
						continue
					}
					approvals = append(approvals, o.ID)
					answer := map[string]any{"type": "approval_response", "id": o.ID, "decision": "allow_once"}
					if tt.edit != "" {
						answer["updated_input"] = map[string]any{"command": tt.edit}
					}
					line, _ := json.Marshal(answer)
					go inW.Write(append(line, '\n'))
				}
			}()
			go inW.Write([]byte(`{"type":"prompt","text":"go"}` + "\n"))
			if err := r.Run(context.Background(), inR, outW); err != nil {
				t.Fatalf("Run() = %v", err)
			}
			outW.Close()
			<-done
			inW.Close()
			var got []string
			for _, v := range be.verdicts {
				got = append(got, map[bool]string{true: "allow", false: "deny"}[v.Allow])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("verdicts %v, want %v", got, tt.want)
			}
			if len(approvals) != tt.asked {
				t.Errorf("approvals asked %q, want %d", approvals, tt.asked)
			}
			if ids := slices.Compact(slices.Sorted(slices.Values(approvals))); len(ids) != len(approvals) {
				t.Errorf("approval ids %q: one id for two approvals, so an answer to one could settle the other", approvals)
			}
			entries, err := db.Query(context.Background(), audit.Query{})
			if err != nil {
				t.Fatal(err)
			}
			var rows []string
			for i := len(entries) - 1; i >= 0; i-- {
				rows = append(rows, entries[i].Decision+" "+entries[i].Action)
			}
			if !slices.Equal(rows, tt.rows) {
				t.Errorf("audit rows %q, want %q", rows, tt.rows)
			}
		})
	}
}
