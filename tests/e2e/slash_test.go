package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	levelInfo  = 2
	levelWarn  = 3
	levelError = 4
)

func TestSlashCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup string   // an existing chat file's content (empty: a new chat)
		lines []string // slash lines, each followed by <CR>
		check func(t *testing.T, c chatFile)
		note  string // a piece of the last notification
		level int
		keep  bool // the slash line stays (nothing was done)
	}{
		{
			name: "allow", lines: []string{"/allow Bash(npm:*)"},
			check: func(t *testing.T, c chatFile) {
				if !has(c.Allow, "Bash(npm:*)") || !has(c.Allow, "Read(**)") {
					t.Errorf("permissions_allow = %q, want Read(**) and Bash(npm:*)", c.Allow)
				}
			},
			note: "Added Bash(npm:*) to permissions_allow.", level: levelInfo,
		},
		{
			name: "ask canonicalises", lines: []string{"/ask bash(git push:*)"},
			check: func(t *testing.T, c chatFile) {
				if !has(c.Ask, "Bash(git push:*)") {
					t.Errorf("permissions_ask = %q, want Bash(git push:*)", c.Ask)
				}
			},
			note: "Added Bash(git push:*) to permissions_ask.", level: levelInfo,
		},
		{
			name: "deny several with spaces", lines: []string{"/deny Bash(rm -rf) Bash(npm run build)"},
			check: func(t *testing.T, c chatFile) {
				if !has(c.Deny, "Bash(rm -rf)") || !has(c.Deny, "Bash(npm run build)") {
					t.Errorf("permissions_deny = %q, want Bash(rm -rf) and Bash(npm run build)", c.Deny)
				}
			},
			note: "Bash(rm -rf), Bash(npm run build)", level: levelInfo,
		},
		{
			name: "remove", lines: []string{"/allow -Read(**)"},
			check: func(t *testing.T, c chatFile) {
				if has(c.Allow, "Read(**)") {
					t.Errorf("permissions_allow = %q, want no Read(**)", c.Allow)
				}
			},
			note: "Removed Read(**) from permissions_allow.", level: levelInfo,
		},
		{
			name: "show list", lines: []string{"/allow"},
			note: "permissions_allow: Read(**)", level: levelInfo,
		},
		{
			name: "mode", lines: []string{"/permission acceptEdits"},
			check: func(t *testing.T, c chatFile) {
				if c.Mode != "acceptEdits" {
					t.Errorf("permissions_mode = %q, want acceptEdits", c.Mode)
				}
			},
			note: "Set permissions_mode to acceptEdits.",
		},
		{
			name: "preset", lines: []string{"/preset locked"},
			check: func(t *testing.T, c chatFile) {
				if c.Preset != "locked" {
					t.Errorf("permissions_preset = %q, want locked", c.Preset)
				}
			},
			note: "Set permissions_preset to locked.",
		},
		{
			name:  "new session",
			setup: "---\nvibing.nvim: true\nsession_id: 3f2a\npermissions_mode: default\n---\n\n## User\n\n",
			lines: []string{"/new-session"},
			check: func(t *testing.T, c chatFile) {
				if c.Session != "" {
					t.Errorf("session_id = %q, want it gone", c.Session)
				}
			},
			note: "Started a new session",
		},
		{
			name: "help", lines: []string{"/help"},
			note: "/permissions (or /perm)", level: levelInfo,
		},
		{
			name: "allow overrides ask", lines: []string{"/ask Bash", "/allow Bash"},
			check: func(t *testing.T, c chatFile) {
				if !has(c.Ask, "Bash") || !has(c.Allow, "Bash") {
					t.Errorf("ask = %q, allow = %q, want Bash in both", c.Ask, c.Allow)
				}
			},
			note: "Note: Allow list overrides ask list - tool will be auto-approved", level: levelWarn,
		},
		{
			name: "deny shadows", lines: []string{"/allow Bash(npm:*)", "/ask Bash(git:*)", "/deny Bash"},
			note: "Bash(npm:*) (allow), Bash(git:*) (ask) will be refused", level: levelWarn,
		},
		{
			name: "unknown command", lines: []string{"/frob"},
			note: "unknown command /frob", level: levelWarn, keep: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			path := ""
			if tt.setup != "" {
				path = filepath.Join(e.dir, "existing.md")
				if err := os.WriteFile(path, []byte(tt.setup), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			path = e.newChat(path)
			for _, l := range tt.lines {
				e.say(l)
			}
			c, text := readChat(t, path)
			if tt.check != nil {
				tt.check(t, c)
			}
			if got := e.lastLine(); got != "" && !tt.keep {
				t.Errorf("last line after %q = %q, want it cleared", tt.lines, got)
			}
			if buf := e.bufferText() + "\n"; buf != text && !tt.keep {
				t.Errorf("buffer and file differ after %q:\nbuffer:\n%s\nfile:\n%s", tt.lines, buf, text)
			}
			n := e.lastNote()
			if !strings.Contains(n.Msg, tt.note) {
				t.Errorf("notification after %q = %q, want it to mention %q", tt.lines, n.Msg, tt.note)
			}
			if tt.level != 0 && n.Level != tt.level {
				t.Errorf("notification level after %q = %d, want %d", tt.lines, n.Level, tt.level)
			}
		})
	}
}

func TestBadRulesWriteNothing(t *testing.T) {
	t.Parallel()
	e := start(t)
	path := e.newChat("")
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"/allow Nope(x)", "/deny Bash(npm", "/ask Skill(x)", "/allow Read Frob(y)", "/permission yolo", "/preset nope"} {
		e.say(line)
		n := e.lastNote()
		if n.Level != levelError {
			t.Errorf("%q notified %q at level %d, want an error", line, n.Msg, n.Level)
		}
		after, _ := os.ReadFile(path)
		if string(after) != string(before) {
			t.Errorf("%q changed the file:\n%s", line, after)
		}
		if got := e.lastLine(); got != line {
			t.Errorf("after %q the line is %q, want it kept for fixing", line, got)
		}
		e.keys("Gdd")
	}
	for _, n := range e.notes()[:3] {
		if !strings.Contains(n.Msg, "example: ") {
			t.Errorf("refusal %q shows no example", n.Msg)
		}
	}
}

func TestBuilder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers []string // vim.ui.select answers in order
		input   any      // vim.ui.input answer (nil: cancel)
		check   func(c chatFile) bool
		note    string
	}{
		{"ask with a command prefix", []string{"Bash", "ask"}, "npm test",
			func(c chatFile) bool { return has(c.Ask, "Bash(npm test:*)") }, "Added Bash(npm test:*) to permissions_ask."},
		{"allow a path glob", []string{"Edit", "allow"}, "src/**/*.go",
			func(c chatFile) bool { return has(c.Allow, "Edit(src/**/*.go)") }, "Added Edit(src/**/*.go)"},
		{"deny a domain", []string{"WebFetch", "deny"}, "*.example.org",
			func(c chatFile) bool { return has(c.Deny, "WebFetch(*.example.org)") }, "permissions_deny"},
		{"a tool without argument", []string{"TodoWrite", "deny"}, "",
			func(c chatFile) bool { return has(c.Deny, "TodoWrite") }, "Added TodoWrite"},
		{"cancel", []string{"Read", "allow"}, nil,
			func(c chatFile) bool { return len(c.Allow) == 1 }, "cancelled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := start(t)
			path := e.newChat("")
			e.lua(`
				local answers, input = ...
				_G.vibing_seen = {}
				vim.ui.select = function(items, opts, cb)
					local shown = {}
					for _, it in ipairs(items) do table.insert(shown, opts.format_item and opts.format_item(it) or it) end
					table.insert(_G.vibing_seen, shown)
					cb(table.remove(answers, 1))
				end
				vim.ui.input = function(opts, cb)
					table.insert(_G.vibing_seen, { opts.prompt })
					if input == vim.NIL then cb(nil) else cb(input) end
				end
			`, nil, tt.answers, tt.input)
			e.say("/perm")
			c, _ := readChat(t, path)
			if !tt.check(c) {
				t.Errorf("after the builder: %+v", c)
			}
			if n := e.lastNote(); !strings.Contains(n.Msg, tt.note) {
				t.Errorf("notification = %q, want it to mention %q", n.Msg, tt.note)
			}
			var seen [][]string
			e.lua(`return _G.vibing_seen`, &seen)
			if len(seen) < 2 || !has(seen[0], "Read  [allow: Read(**)]") || !has(seen[1], "deny") {
				t.Errorf("builder showed %q, want the tools with what is set (Read  [allow: Read(**)]) then allow/ask/deny", seen)
			}
		})
	}
}

func TestFrontmatterSafety(t *testing.T) {
	t.Parallel()
	e := start(t)
	orig, err := os.ReadFile("testdata/unusual.md")
	if err != nil {
		t.Fatal(err)
	}
	var body strings.Builder
	body.Write(orig)
	for i := 0; i < 5000; i++ {
		body.WriteString("long body line with `code` and trailing space \n")
	}
	body.WriteString("## User\n\n")
	path := filepath.Join(e.dir, "unusual.md")
	if err := os.WriteFile(path, []byte(body.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e.newChat(path)
	e.say("/allow Bash(git status:*)")
	e.say("/permission plan")
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := readChat(t, path)
	if !has(c.Allow, "Bash(git status:*)") || !has(c.Allow, "Read") || c.Mode != "plan" {
		t.Fatalf("frontmatter after edits: %+v", c)
	}
	// Every frontmatter line outside the edited keys is kept, in order.
	fmEnd := strings.Index(string(orig)[4:], "\n---\n") + 4
	want := strings.Split(string(orig)[:fmEnd], "\n")
	gotFM := strings.Split(string(got)[:strings.Index(string(got)[4:], "\n---\n")+4], "\n")
	j := 0
	for _, l := range want {
		if strings.HasPrefix(l, "permissions_mode:") || strings.HasPrefix(l, "permissions_allow:") || strings.HasPrefix(l, "  - ") || strings.HasPrefix(l, "  # a comment inside") {
			continue
		}
		for j < len(gotFM) && gotFM[j] != l {
			j++
		}
		if j == len(gotFM) {
			t.Errorf("frontmatter line %q lost or moved; now:\n%s", l, strings.Join(gotFM, "\n"))
			break
		}
	}
	// The body is byte for byte the same (but for the cleared slash lines).
	wantBody := body.String()[fmEnd:]
	gotBody := string(got)[strings.Index(string(got)[4:], "\n---\n")+4:]
	if wantBody != gotBody {
		t.Errorf("body changed: got %d bytes, want %d", len(gotBody), len(wantBody))
	}
}

func TestTypingWithInput(t *testing.T) {
	t.Parallel()
	e := start(t)
	path := e.newChat("")
	// Real typeahead, as a person types: nvim_input is asynchronous.
	if _, err := e.nv.Input("GA/allow WebFetch(github.com)<Esc><CR>"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the chat file to hold WebFetch(github.com)", func() bool {
		c, _ := readChat(t, path)
		return has(c.Allow, "WebFetch(github.com)")
	})
}

func TestCheckhealth(t *testing.T) {
	t.Parallel()
	e := start(t)
	if err := e.nv.Command("checkhealth vibing"); err != nil {
		t.Fatal(err)
	}
	text := e.bufferText()
	for _, want := range []string{"vibing-agent ready (vibing-agent 0.1.0", "Neovim ", "claude", "audit database writable"} {
		if !strings.Contains(text, want) {
			t.Errorf(":checkhealth vibing output lacks %q:\n%s", want, text)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	e := start(t)
	doc := filepath.Join(e.dir, "rtp", "doc")
	if err := os.MkdirAll(doc, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(repoRoot, "doc", "vibing.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(doc, "vibing.txt"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	e.lua(`vim.opt.runtimepath:append(...) vim.cmd("helptags " .. vim.fn.fnameescape(... .. "/doc"))`, nil, filepath.Join(e.dir, "rtp"))
	for _, tag := range []string{"vibing", ":VibingChat", ":VibingPermissions", ":VibingAudit", "vibing-slash-allow", "/perm", "vibing-options-window", "vibing-highlights"} {
		if err := e.nv.Command("help " + tag); err != nil {
			t.Errorf(":help %s: %v", tag, err)
			continue
		}
		var name string
		e.lua(`return vim.api.nvim_buf_get_name(0)`, &name)
		if filepath.Base(name) != "vibing.txt" {
			t.Errorf(":help %s opened %q, want vibing.txt", tag, name)
		}
	}
}

func TestViews(t *testing.T) {
	t.Parallel()
	e := start(t)
	e.lua(`require("vibing").setup({ bin = ..., audit_path = select(2, ...) })`, nil, agentBin, filepath.Join(e.dir, "audit.sqlite"))
	e.newChat("")
	e.say("/deny Bash(rm:*)")
	if err := e.nv.Command("VibingPermissions"); err != nil {
		t.Fatal(err)
	}
	if text := e.bufferText(); !strings.Contains(text, "Bash(rm:*)") {
		t.Errorf(":VibingPermissions shows:\n%s\nwant the deny rule Bash(rm:*)", text)
	}
	if err := e.nv.Command("close | VibingAudit"); err != nil {
		t.Fatal(err)
	}
	if text := e.bufferText(); !strings.Contains(text, "vibing audit") {
		t.Errorf(":VibingAudit shows:\n%s", text)
	}
}
