package matcher_test

import (
	"fmt"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// benchRules builds n rules of mixed kinds, none of which matches the
// benchmark calls, so every rule is evaluated.
func benchRules(b *testing.B, n int) []*matcher.Rule {
	b.Helper()
	rules := make([]*matcher.Rule, 0, n)
	for i := 0; len(rules) < n; i++ {
		var t string
		switch i % 5 {
		case 0:
			t = fmt.Sprintf("Bash(tool%d:*)", i)
		case 1:
			t = fmt.Sprintf("Read(dir%d/**/*.go)", i)
		case 2:
			t = fmt.Sprintf("WebFetch(*.host%d.org)", i)
		case 3:
			t = fmt.Sprintf("Edit(src/gen%d/*.ts)", i)
		default:
			t = fmt.Sprintf("Bash(cmd%d sub)", i)
		}
		rules = append(rules, mustRule(b, t))
	}
	return rules
}

// decide runs one deny/ask/allow pass the way the session pipeline does.
func decide(rules []*matcher.Rule, c *command.Call) bool {
	for _, r := range rules {
		if r.Match(c, matcher.DenyList) {
			return true
		}
	}
	ok, _ := matcher.Covers(rules, c)
	return ok
}

func BenchmarkPrepareBash(b *testing.B) {
	in := map[string]any{"command": "npm test && git status | grep -v foo > /dev/null"}
	b.ReportAllocs()
	for b.Loop() {
		command.Prepare("Bash", in, testEnv)
	}
}

// benchMatch measures one decision: Prepare (shell parse, URL parse, path
// resolution with its symlink look-ups) plus the deny and allow passes.
func benchMatch(b *testing.B, n int, tool string, in map[string]any) {
	rules := benchRules(b, n)
	b.ReportAllocs()
	for b.Loop() {
		c := command.Prepare(tool, in, testEnv)
		decide(rules, c)
	}
}

// benchMatchPrepared measures the matching alone, on a call prepared once.
func benchMatchPrepared(b *testing.B, n int, tool string, in map[string]any) {
	rules := benchRules(b, n)
	c := command.Prepare(tool, in, testEnv)
	b.ReportAllocs()
	for b.Loop() {
		decide(rules, c)
	}
}

func BenchmarkPrepareFile(b *testing.B) {
	in := map[string]any{"file_path": "src/pkg/a.go"}
	b.ReportAllocs()
	for b.Loop() {
		command.Prepare("Read", in, testEnv)
	}
}

func BenchmarkMatchFilePrepared100(b *testing.B) {
	benchMatchPrepared(b, 100, "Read", map[string]any{"file_path": "src/pkg/a.go"})
}
func BenchmarkMatchFilePrepared1000(b *testing.B) {
	benchMatchPrepared(b, 1000, "Read", map[string]any{"file_path": "src/pkg/a.go"})
}

func BenchmarkMatchFile100(b *testing.B) {
	benchMatch(b, 100, "Read", map[string]any{"file_path": "src/pkg/a.go"})
}
func BenchmarkMatchFile1000(b *testing.B) {
	benchMatch(b, 1000, "Read", map[string]any{"file_path": "src/pkg/a.go"})
}
func BenchmarkMatchURL100(b *testing.B) {
	benchMatch(b, 100, "WebFetch", map[string]any{"url": "https://api.github.com/repos"})
}
func BenchmarkMatchURL1000(b *testing.B) {
	benchMatch(b, 1000, "WebFetch", map[string]any{"url": "https://api.github.com/repos"})
}
func BenchmarkMatchBash100(b *testing.B) {
	benchMatch(b, 100, "Bash", map[string]any{"command": "npm test && git status"})
}
func BenchmarkMatchBash1000(b *testing.B) {
	benchMatch(b, 1000, "Bash", map[string]any{"command": "npm test && git status"})
}
