package session_test

import (
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
	"mvdan.cc/sh/v3/syntax"

	"vibing/internal/config"
	"vibing/internal/session"
)

// BenchmarkBashFloor measures, in alternating batches of the same run, the
// Bash decision of BenchmarkDecideBash104 against what no decision of that
// line can do without: the shell parse by mvdan.cc/sh (a parser made once,
// as the engine keeps one) and the one Lstat the guard makes (npm runs
// code the engine cannot read, so a bare word of its line that is a
// symlink into a guarded place must be seen). floor-ns/op is their sum;
// delta-ns/op is the decision's cost beyond it.
func BenchmarkBashFloor(b *testing.B) {
	f := newFixture(b)
	e, err := session.New(config.DefaultConfig(), bashSettings104(), tcase{}.options(f))
	if err != nil {
		b.Fatal(err)
	}
	line := benchBash["command"].(string)
	if d := e.Decide("Bash", benchBash); d.Decision != session.Allow {
		b.Fatalf("Decide = %s (%s), want allow", d.Decision, d.Reason)
	}
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	word := filepath.Join(f.proj, "test")
	var st unix.Stat_t
	fns := []func(){
		func() { e.Decide("Bash", benchBash) },
		func() {
			if _, err := p.Parse(strings.NewReader(line), ""); err != nil {
				b.Fatal(err)
			}
		},
		func() { _ = unix.Lstat(word, &st) },
	}
	per := sideBySide(b, fns)
	b.ReportMetric(per(0), "decide-ns/op")
	b.ReportMetric(per(1), "parse-ns/op")
	b.ReportMetric(per(2), "lstat-ns/op")
	b.ReportMetric(per(1)+per(2), "floor-ns/op")
	b.ReportMetric(per(0)-per(1)-per(2), "delta-ns/op")
}
