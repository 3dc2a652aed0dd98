package session_test

import (
	"strings"
	"sync"
	"testing"

	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

func toolReport(t *testing.T, x session.Explanation, tool string) session.ToolReport {
	t.Helper()
	for _, tr := range x.Tools {
		if tr.Tool == tool {
			return tr
		}
	}
	t.Fatalf("Explain() has no report for %s", tool)
	return session.ToolReport{}
}

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tc       tcase
		tool     string
		wantDef  session.Verdict // ToolReport.Default
		has      []string        // in the tool's Summary
		textHas  []string        // in Text()
		textNot  []string
		allow    []string
		ask      []string
		deny     []string
		resumed  bool
		errCount int
	}{
		{name: "bare deny", tc: tcase{Deny: []string{"Bash"}}, tool: "Bash", wantDef: session.Ask, has: []string{"Bash (mutating): refused (deny: Bash)"}, deny: []string{"Bash"}},
		{name: "bare allow over ask", tc: tcase{Ask: []string{"Bash"}, Allow: []string{"Bash"}}, tool: "Bash", has: []string{"runs without asking (allow: Bash)"}, allow: []string{"Bash"}, ask: []string{"Bash"}},
		{name: "bare ask", tc: tcase{Ask: []string{"WebFetch"}}, tool: "WebFetch", wantDef: session.Ask, has: []string{"WebFetch (network): asks every time (ask: WebFetch)"}},
		{name: "patterns", tc: tcase{Allow: []string{"Bash(npm:*)"}, Ask: []string{"Bash(git push:*)"}, Deny: []string{"Bash(rm:*)"}}, tool: "Bash", wantDef: session.Ask,
			has: []string{"asks by default in default mode", "runs: Bash(npm:*)", "asks: Bash(git push:*)", "refused: Bash(rm:*)"}, allow: []string{"Bash(npm:*)"}, ask: []string{"Bash(git push:*)"}, deny: []string{"Bash(rm:*)"}},
		{name: "edit rule names multiedit", tc: tcase{Deny: []string{"Edit(*.lock)"}}, tool: "MultiEdit", has: []string{"refused: Edit(*.lock)"}, deny: []string{"Edit(*.lock)"}},
		{name: "read-only default", tc: tcase{}, tool: "Read", wantDef: session.Allow, has: []string{"Read (read_only): runs without asking by default in default mode"}},
		{name: "acceptEdits", tc: tcase{Mode: "acceptEdits"}, tool: "Edit", wantDef: session.Allow, has: []string{"runs without asking by default in acceptEdits mode"}, textHas: []string{"Mode: acceptEdits"}},
		{name: "plan", tc: tcase{Mode: "plan"}, tool: "Bash", wantDef: session.Deny, has: []string{"refused by default in plan mode"}},
		{name: "dontAsk", tc: tcase{Mode: "dontAsk"}, tool: "WebFetch", wantDef: session.Deny, has: []string{"refused by default in dontAsk mode"}},
		{name: "bypass", tc: tcase{Mode: "bypassPermissions"}, tool: "Bash", wantDef: session.Allow, has: []string{"runs without asking by default in bypassPermissions mode"}},
		{name: "policy trust", tc: tcase{Config: "policies: {Bash: trust}\n"}, tool: "Bash", wantDef: session.Allow},
		{name: "preset", tc: tcase{Preset: "standard"}, tool: "Bash", has: []string{"asks every time (ask: Bash)", "runs: Bash(git status:*)", "asks: Bash(git push:*)"}, textHas: []string{"Mode: default (preset standard)"}},
		{name: "resumed bare ask", tc: tcase{SessionID: "s1", Ask: []string{"Bash"}}, tool: "Bash", wantDef: session.Deny, resumed: true,
			has: []string{"refused: it asks (ask: Bash), but approval prompts are off in resumed sessions"}},
		{name: "resumed", tc: tcase{SessionID: "s1", Ask: []string{"Bash"}}, tool: "Edit", wantDef: session.Deny, resumed: true,
			has:     []string{"refused by default: it would ask in default mode, but approval prompts are off in resumed sessions"},
			textHas: []string{"Resumed session (resume_ask = deny)", "anything that would ask is denied with guidance", `resume_ask = "prompt" asks instead, which is safe: vibing-agent run registers a PreToolUse hook callback`}},
		{name: "resumed prompt", tc: tcase{SessionID: "s1", Config: "resume_ask: prompt\n"}, tool: "Edit", wantDef: session.Ask, resumed: true,
			textHas: []string{"Resumed session (resume_ask = prompt)", "This chat resumes a session and asks still prompt (resume_ask = prompt): vibing-agent run registers a PreToolUse hook callback", "also on --resume"},
			textNot: []string{"denied with guidance"}},
		{name: "fresh, resume_ask deny", tc: tcase{}, tool: "Edit", wantDef: session.Ask,
			textHas: []string{"Asks prompt. When this chat resumes its session", "anything that would ask is denied with guidance (resume_ask = deny)"}, textNot: []string{"This chat resumes a session"}},
		{name: "fresh, resume_ask prompt", tc: tcase{Config: "resume_ask: prompt\n"}, tool: "Edit", wantDef: session.Ask,
			textHas: []string{"they still prompt (resume_ask = prompt)"}, textNot: []string{"denied with guidance"}},
		{name: "dontAsk resumed", tc: tcase{SessionID: "s1", Mode: "dontAsk", Config: "resume_ask: prompt\n"}, tool: "Edit", wantDef: session.Deny, resumed: true,
			textHas: []string{"dontAsk mode never prompts, in a fresh or a resumed session"}, textNot: []string{"asks still prompt"}},
		{name: "mcp tool from a rule", tc: tcase{Allow: []string{"mcp__github"}}, tool: "mcp__github", has: []string{"runs without asking (allow: mcp__github)"}},
		{name: "regex", tc: tcase{Deny: []string{"/tool:Bash:git push origin (?!main).*/"}}, tool: "Bash", textHas: []string{"Regex rules also apply to every tool: /tool:Bash:git push origin (?!main).*/."}},
		{name: "defaults on", tc: tcase{}, tool: "Bash", textHas: []string{"Always refused, in every mode:", "sudo, doas, pkexec, su", "the fork bomb"}},
		{name: "defaults off", tc: tcase{Config: "default_deny_rules: false\n"}, tool: "Bash", textNot: []string{"Always refused"}},
		{name: "guarded", tc: tcase{}, tool: "Bash", textHas: []string{"No tool may modify vibing's own permission files: $PROJ/.vibing", "$CHAT", "$HOME/.config/vibing/config.yaml"}},
		{name: "invalid rule", tc: tcase{Allow: []string{"Bash(npm"}}, tool: "Bash", errCount: 1, textHas: []string{`ERROR: invalid rule "Bash(npm"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			e, _ := tt.tc.engine(t, f)
			x := e.Explain()
			tr := toolReport(t, x, tt.tool)
			if tt.wantDef != "" && tr.Default != tt.wantDef {
				t.Errorf("Explain().%s.Default = %q, want %q", tt.tool, tr.Default, tt.wantDef)
			}
			for _, s := range tt.has {
				if !strings.Contains(tr.Summary, s) {
					t.Errorf("Explain().%s.Summary = %q, want it to contain %q", tt.tool, tr.Summary, s)
				}
			}
			checkSentence(t, tr.Summary)
			if tt.allow != nil && strings.Join(tr.Allow, ",") != strings.Join(tt.allow, ",") {
				t.Errorf("%s.Allow = %v, want %v", tt.tool, tr.Allow, tt.allow)
			}
			if tt.ask != nil && strings.Join(tr.Ask, ",") != strings.Join(tt.ask, ",") {
				t.Errorf("%s.Ask = %v, want %v", tt.tool, tr.Ask, tt.ask)
			}
			if tt.deny != nil && strings.Join(tr.Deny, ",") != strings.Join(tt.deny, ",") {
				t.Errorf("%s.Deny = %v, want %v", tt.tool, tr.Deny, tt.deny)
			}
			if x.Resumed != tt.resumed {
				t.Errorf("Explain().Resumed = %v, want %v", x.Resumed, tt.resumed)
			}
			if len(x.Errors) != tt.errCount {
				t.Errorf("Explain().Errors = %v, want %d", x.Errors, tt.errCount)
			}
			if x.Cwd != f.proj {
				t.Errorf("Explain().Cwd = %q, want %q", x.Cwd, f.proj)
			}
			text := x.Text()
			for _, s := range tt.textHas {
				if !strings.Contains(text, f.expand(s)) {
					t.Errorf("Text() lacks %q:\n%s", f.expand(s), text)
				}
			}
			for _, s := range tt.textNot {
				if strings.Contains(text, s) {
					t.Errorf("Text() holds %q:\n%s", s, text)
				}
			}
			// the summary's default agrees with a real decision of the tool
			if tt.tool == "Bash" && tt.wantDef != "" && len(tt.tc.Deny)+len(tt.tc.Ask)+len(tt.tc.Allow) == 0 {
				if d := e.Decide("Bash", bash("make")); d.Decision != tr.Default {
					t.Errorf("Explain says Bash default %s, Decide(make) = %s", tr.Default, d.Decision)
				}
			}
		})
	}
}

func TestExplainBroken(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []tcase{{Preset: "nope"}, {Mode: "yolo"}} {
		e, err := tc.engine(t, f)
		if err == nil {
			t.Fatalf("New(%+v) error = nil", tc)
		}
		if e.Err() == nil {
			t.Errorf("Err() = nil for %+v", tc)
		}
		x := e.Explain()
		text := x.Text()
		if len(x.Effective) != 1 || !strings.HasPrefix(x.Effective[0], "Every tool call is denied: ") {
			t.Errorf("Effective = %v, want one line saying every call is denied", x.Effective)
		}
		if !strings.Contains(text, "ERROR: ") {
			t.Errorf("Text() lacks the error:\n%s", text)
		}
		checkSentence(t, x.Effective[0])
	}
}

// TestConcurrentDecide runs Decide from 8 goroutines while grants and rules
// are added; run with -race.
func TestConcurrentDecide(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	e, err := session.New(nil, frontmatter.Settings{Ask: []string{"Bash(npm:*)"}, Deny: []string{"Bash(rm:*)"}}, tcase{}.options(f))
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct {
		tool string
		in   map[string]any
	}{
		{"Bash", bash("npm test")}, {"Bash", bash("rm -rf x")}, {"Edit", file("a.go")},
		{"WebFetch", url("https://go.dev")}, {"Read", file("src/a.go")}, {"Bash", bash("make")},
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				c := calls[(g+i)%len(calls)]
				d := e.Decide(c.tool, c.in)
				if c.tool == "Bash" && c.in["command"] == "rm -rf x" && d.Decision != session.Deny {
					select {
					case errs <- "rm -rf x was " + d.Decision.String():
					default:
					}
				}
				if i%50 == 0 {
					_ = e.Explain()
				}
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			_ = e.GrantSession("Bash(make)", true)
			_ = e.GrantSession("WebFetch(evil.com)", false)
			_ = e.AddRule(allowList, "Bash(rm:*)") // must never beat the deny rule
			_ = e.AddRule(denyList, "Bash(curl:*)")
			_ = e.AddRule(askList, "WebFetch")
			e.GrantOnce("Edit")
		}
	}()
	wg.Wait()
	close(errs)
	for s := range errs {
		t.Error(s)
	}
	if d := e.Decide("Bash", bash("make")); d.Decision != session.Allow || d.Source != session.SourceSession {
		t.Errorf("after grants, make = %s/%s, want allow/session", d.Decision, d.Source)
	}
	if d := e.Decide("Edit", file("a.go")); d.Decision != session.Allow {
		t.Errorf("after GrantOnce(Edit), Edit = %s, want allow", d.Decision)
	}
}
