package session_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"vibing/internal/command"
	"vibing/internal/config"
	"vibing/internal/session"
)

// BenchmarkBashSplit splits BenchmarkDecideBash104's decision into what it
// is made of, measured in alternating batches of the same run (beside
// BenchmarkBashFloor, which it leaves alone: more work between its batches
// would change what it reports): the whole decision (decide-ns/op);
// preparing the call (prepare-ns/op: the shell parse and the walk of its
// commands); the bare parse by mvdan.cc/sh with a reused parser
// (parse-ns/op), so walk-ns/op is prepare minus parse; one Lstat of the
// word the guard looks up (lstat-ns/op); and the pipeline on a call
// prepared once, whose look-ups are kept on it (rules-ns/op: the guard,
// the rules and the autorun check, without the system call). What the
// decision costs beyond those is other-ns/op (the collector, cold caches).
func BenchmarkBashSplit(b *testing.B) {
	f := newFixture(b)
	e, err := session.New(config.DefaultConfig(), bashSettings104(), tcase{}.options(f))
	if err != nil {
		b.Fatal(err)
	}
	in := benchBash
	line := in["command"].(string)
	if d := e.Decide("Bash", in); d.Decision != session.Allow {
		b.Fatalf("Decide = %s (%s), want allow", d.Decision, d.Reason)
	}
	prepared := e.Prepare("Bash", in)
	e.DecideCall(prepared)
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
	var rd strings.Reader
	word := filepath.Join(f.proj, "test") // the word of npm test the guard looks up
	var st syscall.Stat_t
	fns := []func(){
		func() { e.Decide("Bash", in) },
		func() { command.Release(e.Prepare("Bash", in)) },
		func() {
			rd.Reset(line)
			if _, err := parser.Parse(&rd, ""); err != nil {
				b.Fatal(err)
			}
		},
		func() { _ = syscall.Lstat(word, &st) },
		func() { e.DecideCall(prepared) },
	}
	per := sideBySide(b, fns)
	b.ReportMetric(per(0), "decide-ns/op")
	b.ReportMetric(per(1), "prepare-ns/op")
	b.ReportMetric(per(2), "parse-ns/op")
	b.ReportMetric(per(1)-per(2), "walk-ns/op")
	b.ReportMetric(per(3), "lstat-ns/op")
	b.ReportMetric(per(4), "rules-ns/op")
	b.ReportMetric(per(0)-per(1)-per(3)-per(4), "other-ns/op")
}
