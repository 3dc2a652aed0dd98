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
