package matcher_test

import (
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
	"vibing/internal/rulecorpus"
)

func inputFor(tool, v string) map[string]any {
	switch strings.ToLower(tool) {
	case "bash":
		return map[string]any{"command": v}
	case "webfetch":
		return map[string]any{"url": v}
	case "notebookedit", "notebookread":
		return map[string]any{"notebook_path": v}
	case "glob", "grep":
		return map[string]any{"pattern": v}
	}
	return map[string]any{"file_path": v}
}

func TestBypassCorpus(t *testing.T) {
	t.Parallel()
	if n, _ := runCorpus(t, "testdata/bypass.txt"); n < 120 {
		t.Errorf("bypass corpus has %d cases, want at least 120", n)
	}
}

// TestClassCorpora runs one corpus per class of construct the engine must
// see through (testdata/classes/*.txt): each holds at least 10 attack cases
// (match in deny/ask, nocover in allow) and 10 everyday cases that must keep
// working (nomatch in deny/ask, covers in allow).
func TestClassCorpora(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("testdata/classes/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no class corpora: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			n, attacks := runCorpus(t, file)
			if attacks < 10 || n-attacks < 10 {
				t.Errorf("%s: %d attack cases and %d everyday cases, want at least 10 of each", file, attacks, n-attacks)
			}
		})
	}
}

// runCorpus checks every case of a corpus file: expect<TAB>list<TAB>rules<TAB>tool<TAB>input
// and, optionally, <TAB>text the Hit's Unseen reason must contain. It returns the
// number of cases and of attack cases (match, nocover).
func runCorpus(t *testing.T, file string) (n, attacks int) {
	tmp, env := bypassFixture(t)
	name := filepath.Base(file)
	corpusRows(t, file, func(line int, fields []string) {
		if len(fields) != 5 && len(fields) != 6 {
			t.Fatalf("%s:%d: %d fields, want 5 or 6", name, line, len(fields))
		}
		n++
		expect, list, ruleText, tool := fields[0], parseList(fields[1]), strings.ReplaceAll(fields[2], "$TMP", tmp), fields[3]
		input := strings.ReplaceAll(unescapeField(fields[4]), "$TMP", tmp)
		call := command.Prepare(tool, inputFor(tool, input), env)
		var rules []*matcher.Rule
		for _, rt := range strings.Split(ruleText, ";;") {
			rules = append(rules, mustRule(t, rt))
		}
		if expect == "match" || expect == "nocover" {
			attacks++
		}
		switch expect {
		case "match", "nomatch":
			got := rules[0].Match(call, list)
			if got != (expect == "match") {
				t.Errorf("%s:%d: %s rule %q .Match(%s %q) = %v, want %v (call err %v)", name, line, fields[1], ruleText, tool, input, got, !got, call.Err)
			}
			if got && list != matcher.AllowList && strings.EqualFold(tool, "bash") {
				assertDenyStable(t, rules[0], list, input, env)
			}
			if len(fields) == 6 {
				if why := rules[0].HowMatched(call, list).Unseen; !strings.Contains(why, fields[5]) {
					t.Errorf("%s:%d: HowMatched(%q).Unseen = %q, want it to say %q", name, line, input, why, fields[5])
				}
			}
		case "covers", "nocover":
			got, _ := matcher.Covers(rules, call)
			if got != (expect == "covers") {
				t.Errorf("%s:%d: Covers(%q, %q) = %v, want %v (call err %v)", name, line, ruleText, input, got, !got, call.Err)
			}
			if !got {
				for _, r := range rules {
					if r.Match(call, matcher.AllowList) {
						t.Errorf("%s:%d: allow rule %q .Match(%q) = true, but the rules do not cover it", name, line, r.Text, input)
					}
				}
			}
		default:
			t.Fatalf("%s:%d: unknown expectation %q", name, line, expect)
		}
	})
	return n, attacks
}

// assertDenyStable checks that a firing deny/ask rule keeps firing when the
// line is padded in ways that do not change what it runs.
func assertDenyStable(t *testing.T, r *matcher.Rule, list matcher.List, cmd string, env command.Env) {
	t.Helper()
	variants := []string{cmd + "; true", "true && " + cmd, "(" + cmd + "\n)"}
	if !strings.Contains(strings.SplitN(cmd, " ", 2)[0], "=") && !strings.HasPrefix(cmd, "read ") {
		variants = append(variants, "env "+cmd) // env X=v does not set the shell's X
	}
	for _, v := range variants {
		if c := command.Prepare("Bash", map[string]any{"command": v}, env); !r.Match(c, list) {
			t.Errorf("%s rule %q fires on %q but not on %q", list, r.Text, cmd, v)
		}
	}
}

var (
	bypassFixture = rulecorpus.LinkFixture
	unescapeField = rulecorpus.UnescapeField
)
