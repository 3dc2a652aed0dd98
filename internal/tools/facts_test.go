package tools

import (
	"strings"
	"testing"
)

// TestFactsOfIsOneAnswer: FactsOf gives, in one look-up, what Find,
// Canonical, LevelIn, SameKey and CommandIn answer one by one, for every
// tool of the table in three spellings, MCP and unknown tools, with and
// without a command in the input.
func TestFactsOfIsOneAnswer(t *testing.T) {
	var names []string
	for _, n := range Names() {
		names = append(names, n, strings.ToLower(n), strings.ToUpper(n))
	}
	names = append(names, "mcp__srv__run", "MCP__Srv__Run", "Frobnicate", "", "Agent", "task")
	inputs := []map[string]any{nil, {"command": "rm -rf x"}, {"command": 3}, {"file_path": "a"}}
	for _, name := range names {
		for _, in := range inputs {
			f := FactsOf(name, in)
			canon, _ := Canonical(name)
			cmd, runs := CommandIn(Find(name), in)
			if f.Info != Find(name) || f.Name != canon || f.Lower != strings.ToLower(canon) ||
				f.Level != LevelOf(name) || f.Key != SameKey(canon) || f.Command != cmd || f.RunsCommand != runs {
				t.Errorf("FactsOf(%q, %v) = %+v; one by one: %v %q %v %q %q %v", name, in, f, Find(name), canon, LevelOf(name), SameKey(canon), cmd, runs)
			}
		}
	}
}

// TestFamilies: the tools that change files are the edit family, the tools
// that read a path (Read, NotebookRead and the searches) the read family,
// and no other tool is of either.
func TestFamilies(t *testing.T) {
	reads := map[string]bool{"Read": true, "NotebookRead": true, "Grep": true, "Glob": true, "LS": true}
	for _, n := range Names() {
		in := Find(n)
		var want Family
		if in.Edit {
			want |= FamilyEdit
		}
		if reads[n] {
			want |= FamilyRead
		}
		if in.Family != want {
			t.Errorf("%s: family %b, want %b", n, in.Family, want)
		}
	}
}
