package demo_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/config"
	"vibing/internal/demo"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/run"
	"vibing/internal/runtest"
	"vibing/internal/session"
)

// project is a demo project made by scripts/demo-project.sh.
type project struct {
	dir, chat string
}

func makeProject(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, err := exec.Command("bash", append([]string{"../../scripts/demo-project.sh"}, args...)...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

func newProject(t *testing.T) project {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	chat, err := makeProject(t, dir)
	if err != nil {
		t.Fatalf("demo-project.sh %s: %v (%s)", dir, err, chat)
	}
	return project{dir: dir, chat: chat}
}

func (p project) read(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// answerer answers an approval request: the line to send, or "" for none.
type answerer func(req run.Output) run.Input

// answers answers by tool name; tools not listed get allow_once.
func answers(byTool map[string]run.Answer) answerer {
	return func(req run.Output) run.Input {
		d, ok := byTool[req.Tool]
		if !ok {
			d = run.AllowOnce
		}
		return run.Input{Type: "approval_response", ID: req.ID, Decision: d}
	}
}

// turn is one finished run.
type turn struct {
	events []run.Output
	err    error
	audit  []run.AuditEntry
}

// runOpts adjust a run.
type runOpts struct {
	engine  run.Engine // default: the chat's session.Engine
	backend *demo.Demo // default: &demo.Demo{}
	env     []string
}

// drive runs one message of the demo backend on p's chat through
// run.Runner, answering approvals through the runner's stdin as the editor
// would, and closes stdin after its result.
func drive(t *testing.T, p project, prompt string, answer answerer, o runOpts) turn {
	t.Helper()
	return converse(t, p, []string{prompt}, answer, o)
}

// converse is drive for a conversation: each message is sent once the
// result of the one before came (as the editor does: one live agent per
// chat), and stdin is closed after the last result, or after a final one.
func converse(t *testing.T, p project, prompts []string, answer answerer, o runOpts) turn {
	t.Helper()
	home := t.TempDir()
	s, eng, err := chatEngine(p, home, false, false)
	if err != nil {
		t.Fatal(err)
	}
	var reload func() (run.Reloaded, error)
	if o.engine == nil {
		o.engine = run.SessionEngine{Engine: eng}
		// before a later message the chat is read again, as
		// `vibing-agent run` does: rules saved by an "always" count
		resumed := eng.Resumed()
		reload = func() (run.Reloaded, error) {
			_, e, err := chatEngine(p, home, true, resumed)
			if err != nil {
				return run.Reloaded{}, err
			}
			return run.Reloaded{Engine: run.SessionEngine{Engine: e}, Mode: e.Mode()}, nil
		}
	}
	if o.backend == nil {
		o.backend = &demo.Demo{}
	}
	log := &runtest.Audit{}
	r := &run.Runner{
		Backend: o.backend,
		Engine:  o.engine,
		Audit:   log,
		Chat:    p.chat,
		Turn: run.Turn{SessionID: s.SessionID, Mode: eng.Mode(), Cwd: p.dir, Env: o.env,
			ApprovalTimeoutS: 10},
		ApprovalTimeout: 10 * time.Second,
		CancelGrace:     2 * time.Second,
		Reload:          reload,
		WriteBack: func(list matcher.List, rule string) error {
			key := frontmatter.KeyAllow
			if list == matcher.DenyList {
				key = frontmatter.KeyDeny
			}
			return frontmatter.EditFile(p.chat, func(d *frontmatter.Document) error {
				_, err := d.AddToList(key, rule)
				return err
			})
		},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := r.Run(ctx, inR, outW)
		_ = outW.Close()
		done <- err
	}()
	send := func(m run.Input) {
		line, _ := json.Marshal(m)
		if _, err := inW.Write(append(line, '\n')); err != nil {
			t.Errorf("write stdin: %v", err)
		}
	}
	go send(run.Input{Type: "prompt", Text: prompts[0]})
	sent, closed := 1, false
	var tu turn
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var o run.Output
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("stdout line %q is not JSON: %v", sc.Text(), err)
		}
		tu.events = append(tu.events, o)
		switch o.Type {
		case "approval_request":
			if m := answer(o); m.Type != "" {
				go send(m)
			}
		case "result":
			if o.Final || sent == len(prompts) {
				if !closed {
					closed = true
					_ = inW.Close()
				}
			} else {
				go send(run.Input{Type: "prompt", Text: prompts[sent]})
				sent++
			}
		}
	}
	tu.err = <-done
	_ = inW.Close()
	tu.audit = append(tu.audit, log.Rows()...)
	return tu
}

// turns splits a conversation's events by message: each begins with its
// session event.
func (tu turn) turns() []turn {
	var out []turn
	for _, e := range tu.events {
		if e.Type == "session" || len(out) == 0 {
			out = append(out, turn{})
		}
		out[len(out)-1].events = append(out[len(out)-1].events, e)
	}
	return out
}

// chatEngine builds the permission engine from p's chat as it is now. For a
// later message of a live agent (later), the chat holds the session id the
// first message wrote, but the session is resumed only when the run started
// as one (resumed).
func chatEngine(p project, home string, later, resumed bool) (frontmatter.Settings, *session.Engine, error) {
	doc, err := frontmatter.ReadFile(p.chat)
	if err != nil {
		return frontmatter.Settings{}, nil, err
	}
	s, err := doc.Settings()
	if err != nil {
		return frontmatter.Settings{}, nil, err
	}
	st := s
	if later && !resumed {
		st.SessionID = ""
	}
	eng, err := session.New(config.DefaultConfig(), st, session.Options{Cwd: p.dir, ChatFile: p.chat, Home: home, Resumed: resumed})
	if err != nil {
		return frontmatter.Settings{}, nil, fmt.Errorf("session.New: %w", err)
	}
	return s, eng, nil
}

// types lists the event types, with consecutive text events folded into one.
func (tu turn) types() []string {
	var out []string
	for _, e := range tu.events {
		if e.Type == "text" && len(out) > 0 && out[len(out)-1] == "text" {
			continue
		}
		out = append(out, e.Type)
	}
	return out
}

func (tu turn) count(typ string) int {
	n := 0
	for _, e := range tu.events {
		if e.Type == typ {
			n++
		}
	}
	return n
}

func (tu turn) text() string {
	var b strings.Builder
	for _, e := range tu.events {
		if e.Type == "text" {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

// call gathers the events of one tool call, by the tool_use's position
// among the turn's tool calls (0-based).
type call struct {
	use, decision, request, resolved, result *run.Output
}

func (tu turn) calls() []call {
	var out []call
	byID := map[string]int{}
	for i := range tu.events {
		e := &tu.events[i]
		switch e.Type {
		case "tool_use":
			byID[e.ID] = len(out)
			out = append(out, call{use: e})
		case "decision":
			out[byID[e.ID]].decision = e
		case "approval_request":
			out[byID[e.ID]].request = e
		case "approval_resolved":
			out[byID[e.ID]].resolved = e
		case "tool_result":
			out[byID[e.ID]].result = e
		}
	}
	return out
}

func (c call) content() string {
	if c.result == nil || c.result.Content == nil {
		return ""
	}
	return *c.result.Content
}

func (c call) isError() bool {
	return c.result != nil && c.result.IsError != nil && *c.result.IsError
}

// allowAll is an engine that allows every call (to prove the demo itself
// never runs sudo).
type allowAll struct{}

func (allowAll) Decide(tool string, _ map[string]any, _ string) session.Decision {
	return session.Decision{Decision: session.Allow, Reason: "test allows everything", Action: "tool:" + tool + ":x"}
}
func (allowAll) Suggest(tool string, _ map[string]any) string { return tool }
func (allowAll) GrantSession(string, bool) error              { return nil }
func (allowAll) GrantOnce(string)                             {}
func (allowAll) AddRule(matcher.List, string) error           { return nil }
func (allowAll) Resumed() bool                                { return false }
