package rpc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"vibing/internal/auditrow"
	"vibing/internal/claude"
	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/matcher"
	"vibing/internal/policy"
	"vibing/internal/run"
	"vibing/internal/sandbox"
	"vibing/internal/session"
	"vibing/internal/tools"
	"vibing/internal/version"
)

// DefaultAuditLimit is how many audit rows a query returns when it names no limit.
const DefaultAuditLimit = 100

func (h *Host) version(context.Context, params) (any, error) { return version.Version, nil }

func (h *Host) info(context.Context, params) (any, error) {
	names := tools.Names()
	args := make(map[string]any, len(names))
	examples := make(map[string]any, len(names))
	levels := make(map[string]any, len(names))
	for _, n := range names {
		in, _ := tools.Lookup(n)
		args[n] = in.Arg.String()
		examples[n] = in.Example
		levels[n] = string(in.Level)
	}
	return map[string]any{
		"version":  version.Version,
		"tools":    names,
		"args":     args,
		"examples": examples,
		"levels":   levels,
		"modes":    config.Modes,
		"presets":  h.cfg().PresetNames(),
		// The value sets the editor keeps its own copies of (a Lua spec
		// checks that they agree): each from the one place it is defined.
		"answers":    run.Options,
		"policies":   config.PolicyValues,
		"resume_ask": config.ResumeAskValues,
		"sandbox":    config.SandboxValues,
		"decisions":  session.Decisions,
		"outcomes":   auditrow.Outcomes,
	}, nil
}

// RuleCheck is the outcome of validating one rule text.
type RuleCheck struct {
	Rule    string // canonical text when valid
	Tool    string
	Arg     string
	Err     string // why the rule is invalid, naming it and showing an example
	Example string
}

// CheckRule validates and canonicalises one rule text.
func CheckRule(text string) RuleCheck {
	r, err := parseRule(text)
	if err != nil {
		rc := RuleCheck{Err: err.Error()}
		var re *matcher.RuleError
		if errors.As(err, &re) {
			rc.Example = re.Example
		}
		return rc
	}
	return RuleCheck{Rule: r.Text, Tool: r.Tool, Arg: r.Arg}
}

// parseRule is matcher.ParseRule made safe: a panic is an invalid rule.
func parseRule(text string) (r *matcher.Rule, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("invalid rule %q: it could not be understood (%v)", text, p)
		}
	}()
	if strings.TrimSpace(text) == "" {
		return nil, &matcher.RuleError{Rule: text, Msg: "a rule cannot be empty", Example: "Bash(npm test:*)"}
	}
	r, err = matcher.ParseRule(text)
	if err == nil && r == nil {
		err = fmt.Errorf("invalid rule %q: it could not be understood", text)
	}
	return r, err
}

func (h *Host) validateRule(_ context.Context, p params) (any, error) {
	text, err := p.str("rule", true)
	if err != nil {
		return nil, err
	}
	rc := CheckRule(text)
	if rc.Err != "" {
		m := failed(rc.Err)
		m["example"] = rc.Example
		return m, nil
	}
	return map[string]any{"ok": true, "rule": rc.Rule, "tool": rc.Tool, "arg": rc.Arg}, nil
}

// checkCommand says whether a Bash command line parses (the review of an
// edited command asks before approving it, so a typo can be fixed).
func (h *Host) checkCommand(_ context.Context, p params) (any, error) {
	cmd, err := p.str("command", true)
	if err != nil {
		return nil, err
	}
	if err := command.CheckShell(cmd); err != nil {
		return failed(err.Error()), nil
	}
	return map[string]any{"ok": true}, nil
}

// parseLines parses a chat's frontmatter given as buffer lines.
func parseLines(lines []string) (*frontmatter.Document, frontmatter.Settings, error) {
	content := strings.Join(lines, "\n") + "\n"
	doc, err := frontmatter.Parse([]byte(content))
	if err != nil {
		return nil, frontmatter.Settings{}, err
	}
	s, err := doc.Settings()
	if err != nil {
		return nil, frontmatter.Settings{}, err
	}
	return doc, s, nil
}

func (h *Host) settings(_ context.Context, p params) (any, error) {
	lines, err := p.lines()
	if err != nil {
		return nil, err
	}
	_, s, err := parseLines(lines)
	if err != nil {
		return failed(err.Error()), nil
	}
	m, err := plain(s)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ok": true, "settings": m}, nil
}

func (h *Host) edit(_ context.Context, p params) (any, error) {
	lines, err := p.lines()
	if err != nil {
		return nil, err
	}
	var e Edit
	if e.Op, err = p.str("op", true); err != nil {
		return nil, err
	}
	if e.List, err = p.str("list", false); err != nil {
		return nil, err
	}
	if e.Value, err = p.str("value", false); err != nil {
		return nil, err
	}
	if e.Rules, err = p.strs("rules", false, MaxRules); err != nil {
		return nil, err
	}
	res, err := ApplyEdit(h.cfg(), lines, e)
	if errors.Is(err, ErrBadRequest) {
		return nil, err
	}
	if err != nil {
		return failed(err.Error()), nil
	}
	if res.Notes == nil {
		res.Notes = []string{}
	}
	return map[string]any{
		"ok":      true,
		"lines":   res.Lines,
		"changed": res.Changed,
		"notes":   res.Notes,
		"message": res.Message,
	}, nil
}

// chatParams reads the lines (the chat's frontmatter), chat and cwd of a
// request about one chat.
func (p params) chatParams() (lines []string, chat, cwd string, err error) {
	if lines, err = p.lines(); err != nil {
		return nil, "", "", err
	}
	if chat, err = p.str("chat", false); err != nil {
		return nil, "", "", err
	}
	if cwd, err = p.str("cwd", false); err != nil {
		return nil, "", "", err
	}
	return lines, chat, cwd, nil
}

func (h *Host) explain(_ context.Context, p params) (any, error) {
	lines, chat, cwd, err := p.chatParams()
	if err != nil {
		return nil, err
	}
	_, s, err := parseLines(lines)
	if err != nil {
		return failed(err.Error()), nil
	}
	// the same loader as vibing-agent check/explain/run: same project root,
	// working directory and guarded paths
	// the chat's live run says whether its session is resumed (the
	// editor knows: the run's session event); without one, the next
	// message resumes whatever session_id the chat holds
	resumed, live, err := p.optBool("resumed")
	if err != nil {
		return nil, err
	}
	var opts session.Options
	opts.Resumed, opts.Fresh = live && resumed, live && !resumed
	ch, err := policy.Open(policy.Request{Config: h.cfg(), ConfigFile: h.ConfigFile, ChatFile: chat, Settings: &s, Dir: cwd, Options: opts})
	if err != nil {
		return failed(err.Error()), nil
	}
	eng, serr := ch.Engine, ch.LoadErr
	x := eng.Explain()
	m, err := plain(x)
	if err != nil {
		return nil, err
	}
	files, err := plainAs[[]any](ch.Files) // a list: one entry per policy file
	if err != nil {
		return nil, err
	}
	sb := h.sandboxReport(ch)
	box, err := plain(sb)
	if err != nil {
		return nil, err
	}
	out := map[string]any{"ok": true, "text": x.Text() + policy.FilesText(ch.Files) + sb.Text(), "explanation": m, "files": files,
		"root": ch.Root, "sandbox": box}
	if serr != nil {
		out["error"] = serr.Error()
	}
	return out, nil
}

func (h *Host) audit(ctx context.Context, p params) (any, error) {
	var q AuditQuery
	var err error
	if q.Chat, err = p.str("chat", false); err != nil {
		return nil, err
	}
	if q.Since, err = p.duration("since"); err != nil {
		return nil, err
	}
	if q.Limit, err = p.int("limit", 10000); err != nil {
		return nil, err
	}
	if q.Limit == 0 {
		q.Limit = DefaultAuditLimit
	}
	if h.Audit == nil {
		return failed("the audit log is unavailable in this build of vibing-agent"), nil
	}
	rows, err := h.Audit(ctx, q)
	if err != nil {
		return failed("audit log: " + err.Error()), nil
	}
	if rows == nil {
		rows = []map[string]any{}
	}
	return map[string]any{"ok": true, "rows": rows}, nil
}

// sandboxReport is the sandbox the claude CLI of this chat runs in (SPEC
// §14), for :VibingPermissions.
func (h *Host) sandboxReport(ch *policy.Chat) sandbox.Report {
	cfg := h.cfg()
	bin, _ := claude.Find(cfg.ClaudeCmd)
	exe, _ := os.Executable()
	cf := h.ConfigFile
	if cf != "" {
		if abs, err := filepath.Abs(cf); err == nil {
			cf = abs
		}
	}
	return sandbox.NewReport(cfg.Sandbox, sandbox.Input{Engine: ch.Engine, Root: ch.Root, Claude: bin, Binary: exe, Config: cf,
		Writable: cfg.SandboxWritable, EnvAllow: cfg.SandboxEnvAllow, Hosts: cfg.SandboxHosts})
}
