package command

import "testing"

// TestBashView: a tool other than Bash that runs a command is prepared with
// its Bash view, once, in Prepare (a PowerShell line in the spelling Bash
// rules use); every other call has none; releasing the call gives the view
// back once.
func TestBashView(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: t.TempDir()}
	for _, tc := range []struct {
		tool  string
		input map[string]any
		want  string // the view's command; "" for no view
	}{
		{"Monitor", map[string]any{"command": "tail -f log.txt"}, "tail -f log.txt"},
		{"PowerShell", map[string]any{"command": `Remove-Item -Recurse .\secrets`}, "rm -r ./secrets"},
		{"mcp__shell__run", map[string]any{"command": "rm -rf build"}, "rm -rf build"},
		{"Bash", map[string]any{"command": "ls"}, ""},
		{"Read", map[string]any{"file_path": "a.txt"}, ""},
		{"mcp__notes__add", map[string]any{"text": "rm -rf /"}, ""},
	} {
		c := Prepare(tc.tool, tc.input, env)
		switch v := c.BashView; {
		case tc.want == "" && v != nil:
			t.Errorf("%s: a Bash view %q, want none", tc.tool, v.Command)
		case tc.want != "" && v == nil:
			t.Errorf("%s: no Bash view, want %q", tc.tool, tc.want)
		case v != nil && (v.Tool != "Bash" || v.Command != tc.want || len(v.Commands) == 0):
			t.Errorf("%s: view %s %q (%d commands), want Bash %q", tc.tool, v.Tool, v.Command, len(v.Commands), tc.want)
		}
		Release(c)
		if c.BashView != nil {
			t.Errorf("%s: Release kept the view on the call", tc.tool)
		}
		Release(c) // a second release gives nothing back twice
	}
	a := Prepare("Bash", map[string]any{"command": "echo a"}, env)
	b := Prepare("Bash", map[string]any{"command": "echo b"}, env)
	if a == b || a.Command != "echo a" || b.Command != "echo b" {
		t.Fatal("two live Bash calls share memory: a view released twice was handed out twice")
	}
}
