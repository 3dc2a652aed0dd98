package matcher_test

import (
	"errors"
	"strings"
	"testing"

	"vibing/internal/matcher"
)

func TestParseRule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, text, tool string
		regex          bool
	}{
		{"Bash", "Bash", "Bash", false},
		{"bash", "Bash", "Bash", false},
		{"  WEBFETCH  ", "WebFetch", "WebFetch", false},
		{"bash(npm   install)", "Bash(npm install)", "Bash", false},
		{"Bash(npm:*)", "Bash(npm:*)", "Bash", false},
		{"Bash(git  commit:*)", "Bash(git commit:*)", "Bash", false},
		{"Bash(npm run *)", "Bash(npm run *)", "Bash", false},
		{"read(src/**/*.ts)", "Read(src/**/*.ts)", "Read", false},
		{"WebFetch(GitHub.COM.)", "WebFetch(github.com)", "WebFetch", false},
		{"WebFetch(domain:github.com)", "WebFetch(github.com)", "WebFetch", false},
		{"WebFetch(*.bücher.de)", "WebFetch(*.xn--bcher-kva.de)", "WebFetch", false},
		{"mcp__github", "mcp__github", "mcp__github", false},
		{"MCP__github__*", "mcp__github__*", "mcp__github__*", false},
		{"mcp__github__create_issue", "mcp__github__create_issue", "mcp__github__create_issue", false},
		{"Note*", "Note*", "Note*", false},
		{"/tool:Bash:git .*/", "/tool:Bash:git .*/", "", true},
		{"Grep(TODO)", "Grep(TODO)", "Grep", false},
		{"Task(general-purpose)", "Task(general-purpose)", "Task", false},
	}
	for _, tt := range tests {
		r, err := matcher.ParseRule(tt.in)
		if err != nil {
			t.Errorf("ParseRule(%q) error: %v", tt.in, err)
			continue
		}
		if r.Text != tt.text || r.Tool != tt.tool || r.IsRegex() != tt.regex {
			t.Errorf("ParseRule(%q) = {Text %q Tool %q regex %v}, want {%q %q %v}", tt.in, r.Text, r.Tool, r.IsRegex(), tt.text, tt.tool, tt.regex)
		}
	}
}

func TestParseRuleInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, msgHas, example string }{
		{"", "empty", "Bash(npm test:*)"},
		{"Bsh", "did you mean Bash", "Bash(npm test:*)"},
		{"Raed(x)", "did you mean Read", "Read(src/**/*.ts)"},
		{"Frobnicate", "unknown tool", ""},
		{"Bash()", "empty", "Bash(npm test:*)"},
		{"Bash( )", "empty", "Bash(npm test:*)"},
		{"Bash(npm", "not closed", "Bash(npm test:*)"},
		{"Bash(a(b)", "unbalanced", "Bash(npm test:*)"},
		{"Bash)", "without", ""},
		{"Skill(x)", "takes no argument", "Skill"},
		{"mcp__", "names no MCP server", "mcp__github"},
		{"MCP____", "names no MCP server", "mcp__github"},
		{"TodoWrite(x)", "takes no argument", "TodoWrite"},
		{"mcp__github(x)", "no argument", "mcp__github"},
		{"Bash(ls && rm x)", "one simple command", "Bash(npm test:*)"},
		{"Bash(ls > x)", "one simple command", ""},
		{"Bash(:*)", "names no command", "Bash"},
		{"Read(../secret)", "'..'", "Read(src/**/*.ts)"},
		{"Read(src/[)", "does not compile", ""},
		{"WebFetch(https://github.com)", "names a host", "WebFetch(github.com)"},
		{"WebFetch(github.com:443)", "names a host", ""},
		{"//", "empty", ""},
		{"/tool:(/", "does not compile", ""},
		{"*", "prefix", ""},
		{"Bash*(x)", "takes no argument", ""},
	}
	for _, tt := range tests {
		_, err := matcher.ParseRule(tt.in)
		var re *matcher.RuleError
		if !errors.As(err, &re) || !errors.Is(err, matcher.ErrInvalidRule) {
			t.Errorf("ParseRule(%q) error = %v, want *RuleError", tt.in, err)
			continue
		}
		if !strings.Contains(re.Msg, tt.msgHas) {
			t.Errorf("ParseRule(%q) message %q, want it to contain %q", tt.in, re.Msg, tt.msgHas)
		}
		if tt.example != "" && re.Example != tt.example {
			t.Errorf("ParseRule(%q) example %q, want %q", tt.in, re.Example, tt.example)
		}
		if re.Example != "" {
			if _, err := matcher.ParseRule(re.Example); err != nil {
				t.Errorf("ParseRule(%q) example %q is itself invalid: %v", tt.in, re.Example, err)
			}
		}
	}
}
