package run

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"vibing/internal/changes"
	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/session"
)

// Defaults.
const (
	DefaultApprovalTimeout = 60 * time.Second
	DefaultCancelGrace     = 2 * time.Second
	maxInputLine           = 1 << 20
)

// Runner runs one chat turn. Set the fields, then call Run once.
type Runner struct {
	Backend Backend
	Engine  Engine
	Audit   Recorder // nil: no audit rows (tests only)
	Chat    string   // the chat file, for audit rows
	Turn    Turn     // everything but the prompt

	// WriteBack, when set, persists an "always" answer to the chat file.
	WriteBack func(list matcher.List, rule string) error

	ApprovalTimeout time.Duration // default 60 s
	CancelGrace     time.Duration // interrupt → kill; default 2 s
	// IdleTimeout stops a backend that sends no event for this long while
	// no approval is pending (interrupt, then kill); 0: no limit.
	IdleTimeout time.Duration
	// AuditWait bounds one audit write; default 30 s.
	AuditWait time.Duration

	// Changes, when set, keeps the pre-turn content of the files allowed
	// calls may write and reports what each turn changed (files_changed).
	Changes *changes.Store

	// Notices are shown to the person (as notice events) once the run starts.
	Notices []string

	// Env is where approval previews read the files a call would change;
	// its zero value reads them from Turn.Cwd.
	Env command.Env

	// Vanishes, when set, reports whether a file the agent writes at path
	// is gone when its process ends (the sandbox's private /tmp): an
	// allowed write there says so.
	Vanishes func(path string) bool

	// OnTools, when set, learns the tools the CLI offers (from its init
	// event), so rules for tools newer than vibing's table are accepted.
	OnTools func(names []string)

	// Abort, when set, ends the run at once once it is closed (a second
	// SIGTERM): the agent and everything it started are killed, without the
	// interrupt and its grace period. (The context, when done, ends the run
	// too, but lets the agent stop the turn first.)
	Abort <-chan struct{}

	// Reload, when set, builds the engine again before each later message
	// of a live backend (a Prompter): the person may have changed the
	// chat's rules in between. The runner applies its session grants to
	// the new engine and shows its notes as notices. An error ends the run.
	Reload func() (Reloaded, error)

	// Network, when set, delivers the sandbox proxy's questions about
	// connections to hosts no rule names (NetworkPermission): each is
	// decided like a WebFetch of that host and asked where no rule or
	// grant answers it.
	Network <-chan *Permission
}

// Run reads the prompt from in, runs the turn, and writes events to out. It
// returns nil when the turn ended with a result and an error (already
// reported as an error event) otherwise.
func (r *Runner) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	return r.RunWith(ctx, in, NewWriter(out))
}

// RunWith is Run on a Writer the caller may also use (for errors found
// before the run starts).
func (r *Runner) RunWith(ctx context.Context, in io.Reader, w *Writer) error {
	s := &state{r: r, w: w, ctx: ctx, verdicts: map[string]Verdict{}, held: map[string][]*Permission{},
		askedIDs: map[string]int{}, runID: newRunID(), audit: newAuditQueue(r.Audit, r.AuditWait)}
	defer s.audit.close()
	if r.ApprovalTimeout <= 0 {
		r.ApprovalTimeout = DefaultApprovalTimeout
	}
	if r.CancelGrace <= 0 {
		r.CancelGrace = DefaultCancelGrace
	}
	inputs := make(chan Input, 16)
	go readInputs(in, inputs, s.w)

	var prompt string
	select {
	case m, ok := <-inputs:
		if !ok || m.Type != "prompt" {
			return s.fail(ErrNoPrompt)
		}
		prompt = m.Text
		s.turn = 1
		s.beginChanges()
	case <-ctx.Done():
		return s.fail(ErrCancelled)
	}
	for _, n := range r.Notices {
		s.notice("%s", n)
	}
	turn := r.Turn
	turn.Prompt = prompt
	if turn.ApprovalTimeoutS == 0 {
		turn.ApprovalTimeoutS = int(r.ApprovalTimeout / time.Second)
	}
	conn, err := r.Backend.Start(ctx, turn)
	if err != nil {
		return s.fail(err)
	}
	s.conn = conn
	return s.loop(inputs)
}

// readInputs decodes editor lines until EOF; a line that is not valid JSON
// is reported as a notice and skipped. A read that fails (a line over 1 MiB)
// ends the input as EOF does, with a notice that says why.
func readInputs(in io.Reader, ch chan<- Input, w *Writer) {
	defer close(ch)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), maxInputLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var m Input
		if err := json.Unmarshal(line, &m); err != nil {
			_ = w.Write(Output{Type: "notice", Message: fmt.Sprintf("ignored a stdin line that is not JSON: %v", err)})
			continue
		}
		ch <- m
	}
	if err := sc.Err(); err != nil {
		_ = w.Write(Output{Type: "notice", Message: fmt.Sprintf("stopped reading stdin: %v", err)})
	}
}

type pendingApproval struct {
	id        string
	perm      *Permission
	decision  session.Decision
	suggested string
	timer     *time.Timer
	updated   map[string]any // the person's edited input, once approved with one
	answered  bool           // updated holds the person's answers to the agent's questions, not an edit
}

type state struct {
	r    *Runner
	w    *Writer
	ctx  context.Context
	conn Conn

	sessionID   string
	sessionSent bool
	queue       []*Permission
	pending     *pendingApproval
	verdicts    map[string]Verdict // by callKey: a call is decided once
	approvals   int
	askedIDs    map[string]int // tool_use_id -> approvals asked for it

	runID string                   // names this run in the audit rows' call keys
	audit *auditQueue              // audit rows, written off the loop
	held  map[string][]*Permission // allowed calls waiting for their audit row, by callKey
	idle  *time.Timer              // no backend event for IdleTimeout
	idled bool

	editorGone bool
	cancelled  bool
	resultSent bool
	errorSent  bool
	killC      <-chan time.Time

	turn    int      // the message being answered, from 1
	between bool     // a live backend finished a turn and waits for the next message
	prompts []string // messages that arrived while a turn ran
	// ending: no message comes any more (the editor is gone, or a signal
	// came): the run ends once the running turn stopped
	ending bool
	grants []grant  // session grants of this run, for a reloaded engine
	onces  []string // tools granted by the once policy, likewise

	webHosts map[string]bool     // hosts of the WebFetch calls allowed (network.go)
	changed  *changes.Turn       // the files this turn may change (changes.go)
	bashKept map[string][]string // Bash tool_use id -> files it kept, settled at its result
	vanishes map[string]bool     // files in the private /tmp whose allowed write was noted
}

func (s *state) loop(inputs <-chan Input) error {
	events := s.conn.Events()
	done := s.ctx.Done()
	abort := s.r.Abort
	broken := s.w.Broken()
	if s.r.IdleTimeout > 0 {
		s.idle = time.NewTimer(s.r.IdleTimeout)
		defer s.idle.Stop()
	}
	for {
		var timerC, idleC <-chan time.Time
		if s.pending != nil {
			timerC = s.pending.timer.C
		}
		if s.idle != nil && s.pending == nil && !s.idled && !s.between {
			idleC = s.idle.C
		}
		select {
		case ev, ok := <-events:
			if !ok {
				return s.finish()
			}
			s.touch()
			s.handle(ev)
		case res := <-s.audit.results:
			s.audit.taken()
			res.job.done(res.err)
		case <-broken:
			// stdout is gone (EPIPE): the editor is, whatever stdin says.
			broken = nil
			s.closeEditor()
		case <-idleC:
			s.idleOut()
		case m, ok := <-inputs:
			if !ok {
				inputs = nil
				s.closeEditor()
				continue
			}
			s.input(m)
		case p := <-s.r.Network:
			s.network(p)
		case <-timerC:
			s.resolve(false, ByTimeout, fmt.Sprintf("Approval timed out after %d s", int(s.r.ApprovalTimeout/time.Second)), AuditAskTimeout, DenyOnce)
		case <-s.killC:
			s.killC = nil
			s.conn.Kill()
		case <-done:
			done = nil
			s.end()
		case <-abort:
			abort = nil
			s.end()
			s.conn.Kill()
		}
		s.pump()
	}
}

// finish runs when the backend's events end.
func (s *state) finish() error {
	s.conn.Kill() // reap anything the backend left in its process group
	if s.pending != nil {
		s.resolve(false, ByCancel, "The agent stopped before the person answered", AuditAskDenied, DenyOnce)
	}
	for _, p := range s.queue {
		p.Reply(Verdict{Message: "The agent stopped"})
	}
	s.queue = nil
	s.flushAudit()
	s.reportChanges()
	switch {
	case s.idled:
		return errors.New("the agent went silent")
	case s.cancelled && !s.resultSent:
		return s.fail(ErrCancelled)
	case s.resultSent:
		return nil
	case s.errorSent:
		return errors.New("backend reported an error")
	default:
		return s.fail(errors.New("the agent exited without a result"))
	}
}

// fail reports err as the run's one error event.
func (s *state) fail(err error) error {
	if !s.errorSent {
		s.errorSent = true
		_ = s.w.Write(Output{Type: "error", Message: err.Error()})
	}
	return err
}

func (s *state) notice(format string, a ...any) {
	_ = s.w.Write(Output{Type: "notice", Message: fmt.Sprintf(format, a...)})
}

func (s *state) handle(ev Event) {
	switch ev.Kind {
	case KindSession:
		if len(ev.Tools) > 0 && s.r.OnTools != nil {
			s.r.OnTools(ev.Tools)
		}
		s.sessionID = ev.SessionID
		if !s.sessionSent {
			s.sessionSent = true
			_ = s.w.Write(Output{Type: "session", SessionID: ev.SessionID, Resumed: ptr(s.resumed()), Turn: s.turn})
		}
	case KindText:
		_ = s.w.Write(Output{Type: "text", Text: ev.Text})
	case KindToolUse:
		_ = s.w.Write(Output{Type: "tool_use", ID: ev.ToolUseID, Tool: ev.Tool, Input: ev.Input, Detail: s.detail(ev.Tool, ev.Input)})
	case KindToolResult:
		s.bashResult(ev.ToolUseID)
		_ = s.w.Write(Output{Type: "tool_result", ID: ev.ToolUseID, IsError: ptr(ev.IsError), Content: ptr(ev.Content)})
	case KindPermission:
		if !s.decided(ev.Permission) {
			s.queue = append(s.queue, ev.Permission)
		}
	case KindWithdraw:
		s.withdraw(ev.RequestID)
	case KindNotice:
		s.notice("%s", ev.Message)
	case KindResult:
		if s.resultSent || s.errorSent {
			return
		}
		if ev.SessionID != "" {
			s.sessionID = ev.SessionID
		}
		s.endTurn(ev)
	case KindError:
		switch {
		case s.resultSent:
		case s.cancelled:
			_ = s.fail(fmt.Errorf("%w (%s)", ErrCancelled, ev.Message))
		default:
			_ = s.fail(errors.New(ev.Message))
		}
		s.armKill()
	}
}

func (s *state) resumed() (b bool) {
	defer func() {
		if recover() != nil {
			b = s.r.Turn.SessionID != ""
		}
	}()
	return s.r.Engine.Resumed()
}

func (s *state) armKill() {
	if s.killC == nil {
		s.killC = time.After(s.r.CancelGrace)
	}
}

func (s *state) input(m Input) {
	switch m.Type {
	case "approval_response":
		if s.pending == nil || m.ID != s.pending.id {
			s.notice("no approval %q is waiting; answer ignored", m.ID)
			return
		}
		s.answer(m)
	case "cancel":
		if s.between {
			s.notice("nothing to cancel: no message is running")
			return
		}
		s.cancel()
	case "prompt":
		s.prompt(m.Text)
	default:
		s.notice("ignored a stdin message of type %q", m.Type)
	}
}

func (s *state) cancel() {
	if s.cancelled {
		return
	}
	s.cancelled = true
	if s.pending != nil {
		s.resolve(false, ByCancel, "The run was cancelled before the person answered", AuditAskDenied, DenyOnce)
	}
	if err := s.conn.Interrupt(); err != nil {
		s.conn.Kill()
	}
	s.armKill()
}

// closeEditor handles the editor going away (stdin closed, or stdout
// broken): nobody can answer an approval or read what the agent does, so
// the run ends (end) rather than work on headless.
func (s *state) closeEditor() {
	s.editorGone = true
	if s.pending != nil {
		s.resolve(false, ByCancel, "The editor closed before the person answered", AuditAskDenied, DenyOnce)
	}
	s.end()
}

// end ends the run: the running turn is cancelled (its waiting approval
// and later asks are denied, the agent is interrupted), messages that wait
// are dropped, and the agent's input closes once the turn stopped; an
// agent that does not stop is killed after the grace period, with
// everything it started.
func (s *state) end() {
	s.ending = true
	s.prompts = nil
	if !s.between {
		s.cancel()
	}
	s.endInputIfIdle()
}

// withdraw handles the backend withdrawing permission request id: the
// approval being asked is closed (decision "withdrawn", by "agent") with an
// ask_denied audit row, a queued request is dropped before it is decided, and
// an id that is neither (already answered, or unknown) is ignored. The
// request's Reply is never called: the backend no longer wants an answer.
func (s *state) withdraw(id string) {
	if id == "" {
		return
	}
	if ap := s.pending; ap != nil && ap.perm.ID == id {
		s.pending = nil
		ap.timer.Stop()
		_ = s.w.Write(Output{Type: "approval_resolved", ID: ap.id, Decision: Withdrawn, By: ByAgent,
			Message: "The agent withdrew the request before the person answered"})
		s.record(ap.perm, ap.decision, AuditAskDenied, "withdrawn by the agent", nil)
		return
	}
	for i, p := range s.queue {
		if p.ID == id {
			s.queue = append(s.queue[:i:i], s.queue[i+1:]...)
			return
		}
	}
}

// decided answers p with the verdict of the same call, or holds it until
// that call's row is written, and reports whether it did. The CLI may ask
// twice about one call (its hook, then its own check); the same id with
// another tool or input is another call.
func (s *state) decided(p *Permission) bool {
	k := callKey(p)
	if k == "" {
		return false
	}
	if v, ok := s.verdicts[k]; ok {
		p.Reply(v)
		return true
	}
	if h, ok := s.held[k]; ok {
		s.held[k] = append(h, p) // answered with the first once its row is written
		return true
	}
	return false
}

// pump decides queued permission requests while none waits for the person.
func (s *state) pump() {
	for s.pending == nil && len(s.queue) > 0 {
		p := s.queue[0]
		s.queue = s.queue[1:]
		if !s.decided(p) { // asked again while the first request was asked
			s.decide(p)
		}
	}
}

func (s *state) decide(p *Permission) {
	d := s.pipeline(p)
	_ = s.w.Write(Output{Type: "decision", ID: p.ToolUseID, Tool: p.Tool, Decision: d.Decision.String(), Reason: d.Reason,
		Rule: d.Rule, Source: d.Source, Level: d.Level, Action: d.Action, Detail: s.detail(p.Tool, p.Input)})
	switch {
	case d.Decision == session.Allow:
		s.settle(p, Verdict{Allow: true}, d, AuditAllow, d.Reason)
	case d.Decision == session.Ask && s.editorGone: // before cancelled: its going away cancelled the run
		s.settle(p, Verdict{Message: "Approval needed, but the editor is gone, so the call is denied"}, d, AuditAskDenied, "editor closed")
	case d.Decision == session.Ask && s.cancelled:
		s.settle(p, Verdict{Message: "The run was cancelled"}, d, AuditAskDenied, "run cancelled")
	case d.Decision == session.Ask:
		s.ask(p, d)
	default: // deny, or anything the runner does not understand
		s.settle(p, Verdict{Message: d.Reason}, d, AuditDeny, d.Reason)
	}
}

// pipeline runs the engine; a failing engine denies.
func (s *state) pipeline(p *Permission) (d session.Decision) {
	defer func() {
		if e := recover(); e != nil {
			d = session.Decision{Decision: session.Deny, Source: session.SourceConfig,
				Reason: fmt.Sprintf("The permission pipeline failed (%v), so the call is denied.", e)}
		}
	}()
	d = s.r.Engine.Decide(p.Tool, p.Input, p.Cwd)
	if p.network {
		d = networkDecision(d)
	}
	if d.Decision != session.Allow && d.Decision != session.Ask && d.Decision != session.Deny {
		d = session.Decision{Decision: session.Deny, Source: d.Source, Action: d.Action, Level: d.Level,
			Reason: fmt.Sprintf("The pipeline answered %q, which is not allow, ask or deny, so the call is denied.", d.Decision)}
	}
	return d
}

func (s *state) suggest(p *Permission) (rule string) {
	defer func() {
		if recover() != nil {
			rule = ""
		}
	}()
	return s.r.Engine.Suggest(p.Tool, p.Input)
}

// touch restarts the idle deadline: the backend said something.
func (s *state) touch() {
	if s.idle != nil && !s.idled {
		if !s.idle.Stop() {
			select {
			case <-s.idle.C:
			default:
			}
		}
		s.idle.Reset(s.r.IdleTimeout)
	}
}

// idleOut stops a backend that went silent: one error, an interrupt, then
// the kill after the grace period.
func (s *state) idleOut() {
	s.idled = true
	sent := "nothing"
	if p, ok := s.conn.(Partial); ok {
		if n := p.PartialLine(); n > 0 {
			sent = fmt.Sprintf("only an incomplete line of %d bytes", n)
		}
	}
	_ = s.fail(fmt.Errorf("the agent sent %s for %s (idle_timeout_s), so the run was stopped", sent, s.r.IdleTimeout))
	s.cancelled = true
	if err := s.conn.Interrupt(); err != nil {
		s.conn.Kill()
	}
	s.armKill()
}

func (s *state) ask(p *Permission, d session.Decision) {
	s.approvals++
	id := p.ToolUseID
	if id == "" {
		id = fmt.Sprintf("approval-%d", s.approvals)
	} else if n := s.askedIDs[id]; n > 0 {
		// the same id asked again about another input: an answer meant for
		// the earlier approval must not settle this one
		s.askedIDs[id] = n + 1
		id = fmt.Sprintf("%s#%d", id, n+1)
	} else {
		s.askedIDs[id] = 1
	}
	ap := &pendingApproval{id: id, perm: p, decision: d, timer: time.NewTimer(s.r.ApprovalTimeout)}
	if p.Tool == QuestionTool {
		// a question is answered or declined, each time: no rule to suggest
		d.NoAlways, d.NoSession = true, true
		if d.Limit == "" {
			d.Limit = "the agent asks you a question: answer it or decline"
		}
		ap.decision = d
	} else {
		ap.suggested = s.suggest(p)
	}
	s.pending = ap
	_ = s.w.Write(Output{Type: "approval_request", ID: id, Tool: p.Tool, Input: p.Input, Level: d.Level,
		Action: d.Action, Rule: d.Rule, Reason: d.Reason, SuggestedRule: ap.suggested, Options: answersFor(d),
		Limit: d.Limit, TimeoutS: int(s.r.ApprovalTimeout / time.Second), Detail: s.detail(p.Tool, p.Input), Preview: s.preview(p)})
	// The call is on disk while it is asked: a run killed meanwhile leaves
	// its trace. A call that cannot be recorded is not asked.
	s.record(p, d, AuditAskPending, "waiting for the person's answer", func(err error) {
		if err != nil && s.pending == ap {
			msg := "vibing could not write this call's audit row, so it is refused: " + err.Error()
			s.notice("%s was refused: its audit row could not be written (%v)", Describe(p.Tool, p.Input), err)
			s.resolve(false, ByCancel, msg, AuditAskDenied, DenyOnce)
		}
	})
}

// answersFor lists the answers the person may give to ask d: a managed ask
// or switch takes the always and for-session answers away.
func answersFor(d session.Decision) []Answer {
	if !d.NoAlways && !d.NoSession {
		return Options
	}
	out := make([]Answer, 0, len(Options))
	for _, o := range Options {
		if (d.NoAlways && (o == AlwaysAllow || o == AlwaysDeny)) || (d.NoSession && (o == AllowForSession || o == DenyForSession)) {
			continue
		}
		out = append(out, o)
	}
	return out
}

func offered(d session.Decision, answer Answer) bool {
	return slices.Contains(answersFor(d), answer)
}

// resolve ends the pending approval. Its audit row holds the SHA-256 of the
// input the answer was about: the person's edit when they approved one.
func (s *state) resolve(allow bool, by, message, outcome string, answer Answer) {
	ap := s.pending
	s.pending = nil
	ap.timer.Stop()
	edited := allow && ap.updated != nil && !ap.answered
	_ = s.w.Write(Output{Type: "approval_resolved", ID: ap.id, Decision: answer.String(), By: by, Message: message, Edited: edited})
	reason := message
	if allow {
		reason = "approved by the person (" + answer.String() + ")"
		if edited {
			reason = "approved by the person (" + answer.String() + ") after editing the input"
		}
		if ap.answered {
			reason = "answered by the person"
		}
	}
	v := Verdict{Allow: allow, Message: message}
	input := ap.perm.Input
	if allow && ap.updated != nil {
		v.UpdatedInput, input = ap.updated, ap.updated
	}
	s.settleWith(ap.perm, v, ap.decision, outcome, reason, func(e *AuditEntry) {
		e.InputSHA256, e.Edited = InputHash(input), edited
	})
}

// answer applies the person's answer to the pending approval. An answer
// that is not one of the six denies the call once, saying so.
func (s *state) answer(m Input) {
	ap := s.pending
	rule := m.Rule
	if rule == "" {
		rule = ap.suggested
	}
	denied := "User denied execution of " + s.describe(ap.perm.Tool, ap.perm.Input)
	if why := strings.TrimSpace(m.Reason); why != "" {
		denied += ": " + why
	}
	a, err := ParseAnswer(string(m.Decision))
	if err != nil {
		s.notice("%v; the call is denied once", err)
		s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
		return
	}
	if !offered(ap.decision, a) {
		s.notice("%s is not offered for this call (%s); the call is denied once", a, ap.decision.Limit)
		s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
		return
	}
	if ap.perm.Tool == QuestionTool && a == AllowOnce {
		s.answerQuestions(m)
		return
	}
	if m.UpdatedInput != nil {
		s.edited(m, a, denied)
		return
	}
	switch a {
	case AllowOnce:
		s.approve(a)
	case DenyOnce:
		s.resolve(false, ByUser, denied, AuditAskDenied, a)
	case AllowForSession, DenyForSession:
		allow := a == AllowForSession
		rules, ok := s.checkRules(a, rule, map[bool]matcher.List{true: matcher.AllowList, false: matcher.DenyList}[allow])
		if !ok {
			return // still pending: the editor asks for the rule again
		}
		for _, r := range rules {
			if err := s.grant(r, allow); err != nil {
				s.notice("%s: %v; the call is denied once instead", a, err)
				s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
				return
			}
			_ = s.w.Write(Output{Type: "session_grant", Decision: map[bool]session.Verdict{true: session.Allow, false: session.Deny}[allow].String(), Rule: r})
		}
		if allow {
			s.approve(a)
		} else {
			s.resolve(false, ByUser, denied, AuditAskDenied, a)
		}
	case AlwaysAllow, AlwaysDeny:
		list := matcher.AllowList
		if a == AlwaysDeny {
			list = matcher.DenyList
		}
		rules, ok := s.checkRules(a, rule, list)
		if !ok {
			return // still pending: the editor asks for the rule again
		}
		for _, rule := range rules {
			if err := s.addRule(list, rule); err != nil {
				s.notice("%s: %v; the call is denied once instead", a, err)
				s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
				return
			}
			if list == matcher.AllowList {
				// An allow rule does not outrank an ask rule (pipeline steps 5
				// and 6), so "always" would still ask again in this run; a
				// session grant (step 4) applies it at once.
				if err := s.grant(rule, true); err != nil {
					s.notice("%s: %v", a, err)
				}
			}
			_ = s.w.Write(Output{Type: "rule_added", List: list.String(), Rule: rule})
			if s.r.WriteBack != nil {
				if err := s.r.WriteBack(list, rule); err != nil {
					s.notice("the rule %s applies to this run but could not be saved to the chat: %v", rule, err)
				}
			}
		}
		if list == matcher.AllowList {
			s.approve(a)
		} else {
			s.resolve(false, ByUser, denied, AuditAskDenied, a)
		}
	default: // ParseAnswer let through a value this switch does not know
		s.notice("unknown answer %q (want one of %v); the call is denied once", a, Options)
		s.resolve(false, ByUser, denied, AuditAskDenied, DenyOnce)
	}
}

func (s *state) approve(answer Answer) {
	ap := s.pending
	if ap.decision.Once {
		s.guard(func() error { s.r.Engine.GrantOnce(ap.perm.Tool); return nil })
		s.onces = append(s.onces, ap.perm.Tool)
	}
	s.resolve(true, ByUser, "", AuditAskApproved, answer)
}

func (s *state) grant(rule string, allow bool) error {
	if rule == "" {
		return errors.New("no rule to grant")
	}
	err := s.guard(func() error { return s.r.Engine.GrantSession(rule, allow) })
	if err == nil {
		s.grants = append(s.grants, grant{rule: rule, allow: allow})
	}
	return err
}

func (s *state) addRule(list matcher.List, rule string) error {
	if rule == "" {
		return errors.New("no rule to add")
	}
	return s.guard(func() error { return s.r.Engine.AddRule(list, rule) })
}

// guard runs an engine call, turning a panic into an error.
func (s *state) guard(f func() error) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("the permission engine failed: %v", e)
		}
	}()
	return f()
}
