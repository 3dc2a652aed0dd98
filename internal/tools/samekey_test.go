package tools_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/tools"
)

// sameAsWritten is Same as it was written before SameKey: what the keys
// the matcher and the engine compare (a rule's worked out when it is
// compiled, a call's in command.Prepare) must keep.
func sameAsWritten(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b {
		return true
	}
	return (a == "task" || a == "agent") && (b == "task" || b == "agent")
}

// corpusToolNames gathers the tool names the decision corpora spell, as
// the call's tool and as a rule's tool: the session's JSON tables and the
// matcher's tab-separated corpora.
func corpusToolNames(t *testing.T) []string {
	t.Helper()
	var out []string
	ruleTool := func(rule string) {
		rule = strings.TrimSpace(rule)
		if rule == "" || strings.HasPrefix(rule, "/") {
			return // a regex names no tool
		}
		if i := strings.IndexByte(rule, '('); i >= 0 {
			rule = rule[:i]
		}
		out = append(out, strings.TrimSpace(rule))
	}
	jsons, _ := filepath.Glob("../session/testdata/*.json")
	for _, f := range jsons {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		if json.Unmarshal(b, &rows) != nil {
			continue // not a table of rows
		}
		for _, row := range rows {
			for k, v := range row {
				switch v := v.(type) {
				case string:
					if k == "tool" {
						out = append(out, v)
					}
				case []any:
					if k == "allow" || k == "ask" || k == "deny" {
						for _, r := range v {
							if s, ok := r.(string); ok {
								ruleTool(s)
							}
						}
					}
				}
			}
		}
	}
	txts, _ := filepath.Glob("../matcher/testdata/*.txt")
	for _, f := range txts {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if strings.HasPrefix(sc.Text(), "#") || len(cols) < 4 {
				continue
			}
			for _, r := range strings.Split(cols[2], ";;") {
				ruleTool(r)
			}
			out = append(out, cols[3])
		}
		fh.Close()
	}
	if len(out) < 50 {
		t.Fatalf("found only %d tool names in the corpora: their format changed", len(out))
	}
	return out
}

// TestSameKeyAgreesWithSame holds the key compare to Same as it was
// written, over every tool name of the table in three spellings, the
// names the corpora spell, and MCP and unknown names.
func TestSameKeyAgreesWithSame(t *testing.T) {
	names := []string{"", "agent", "AGENT", "Task", "task", "tASK", "mcp__github__create_issue",
		"MCP__GitHub__Create_Issue", "mcp__github", "mcp__github__*", "Frobnicate", "frobnicate", "Note*", "İ", "i̇"}
	for _, n := range tools.Names() {
		names = append(names, n, strings.ToLower(n), strings.ToUpper(n))
	}
	names = append(names, corpusToolNames(t)...)
	seen := map[string]bool{}
	var uniq []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			uniq = append(uniq, n)
		}
	}
	bad := 0
	for _, a := range uniq {
		for _, b := range uniq {
			want := sameAsWritten(a, b)
			if got := tools.SameKey(a) == tools.SameKey(b); got != want {
				bad++
				t.Errorf("SameKey(%q) == SameKey(%q) is %v; Same as written says %v", a, b, got, want)
			}
			if got := tools.Same(a, b); got != want {
				t.Errorf("Same(%q, %q) = %v, want %v", a, b, got, want)
			}
			if got := tools.SameKeyLower(strings.ToLower(a)) == tools.SameKey(b); got != want {
				t.Errorf("SameKeyLower(%q) == SameKey(%q) is %v, want %v", strings.ToLower(a), b, got, want)
			}
		}
	}
	t.Logf("%d names, %d pairs compared", len(uniq), len(uniq)*len(uniq))
}
