package command

import "testing"

// BenchmarkShellParse is the floor of BenchmarkPrepareBash: the pooled
// mvdan.cc/sh parse of its line alone, without the walk that works out
// what each command does.
func BenchmarkShellParse(b *testing.B) {
	const line = "npm test && git status | grep -v foo > /dev/null"
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parse(line); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrepareReleaseBash is what a decision costs to prepare its
// Bash call and give it back (as the session does): the parse of
// BenchmarkShellParse and the walk of the line's commands.
func BenchmarkPrepareReleaseBash(b *testing.B) {
	in := map[string]any{"command": "npm test && git status | grep -v foo > /dev/null"}
	env := Env{Cwd: b.TempDir(), Home: b.TempDir()}
	b.ReportAllocs()
	for b.Loop() {
		Release(Prepare("Bash", in, env))
	}
}
