package session_test

import (
	"fmt"
	"testing"

	"vibing/internal/config"
	"vibing/internal/frontmatter"
	"vibing/internal/session"
)

// benchSettings builds a chat with n rules for many tools, as a real chat
// or preset would hold them: a tenth in the deny list, a fifth in the ask
// list, the rest allowed; none matches the benchmark calls, so every rule
// is looked at and the call falls through to the mode.
func benchSettings(n int) frontmatter.Settings {
	var s frontmatter.Settings
	for i := 0; i < n; i++ {
		var r string
		switch i % 10 {
		case 0:
			r = fmt.Sprintf("Bash(tool%d:*)", i)
		case 1:
			r = fmt.Sprintf("Read(dir%d/**/*.go)", i)
		case 2:
			r = fmt.Sprintf("WebFetch(*.host%d.org)", i)
		case 3:
			r = fmt.Sprintf("Edit(src/gen%d/*.ts)", i)
		case 4:
			r = fmt.Sprintf("Bash(cmd%d sub)", i)
		case 5:
			r = fmt.Sprintf("Write(out%d/*.json)", i)
		case 6:
			r = fmt.Sprintf("mcp__server%d", i)
		case 7:
			r = fmt.Sprintf("Grep(pattern%d)", i)
		case 8:
			r = fmt.Sprintf("WebFetch(site%d.com)", i)
		default:
			if i%100 == 9 {
				r = fmt.Sprintf("/tool:Bash:make target%d.*/", i)
			} else {
				r = fmt.Sprintf("Bash(npm run script%d)", i)
			}
		}
		switch {
		case i%10 == 0:
			s.Deny = append(s.Deny, r)
		case i%5 == 1:
			s.Ask = append(s.Ask, r)
		default:
			s.Allow = append(s.Allow, r)
		}
	}
	return s
}

func benchDecide(b *testing.B, n int, tool string, in map[string]any, want session.Verdict) {
	f := newFixture(b)
	e, err := session.New(config.DefaultConfig(), benchSettings(n), tcase{}.options(f))
	if err != nil {
		b.Fatal(err)
	}
	if d := e.Decide(tool, in); d.Decision != want {
		b.Fatalf("Decide = %s (%s), want %s", d.Decision, d.Reason, want)
	}
	b.ReportAllocs()
	for b.Loop() {
		e.Decide(tool, in)
	}
}

var (
	benchFile = file("src/pkg/handler.go")
	benchURL  = url("https://docs.example.com/guide?x=1")
	benchBash = bash("npm test && git status | grep -v foo > /dev/null")
)

func BenchmarkDecideFile100(b *testing.B) { benchDecide(b, 100, "Edit", benchFile, session.Ask) }
func BenchmarkDecideFile1000(b *testing.B) {
	benchDecide(b, 1000, "Edit", benchFile, session.Ask)
}
func BenchmarkDecideURL100(b *testing.B)   { benchDecide(b, 100, "WebFetch", benchURL, session.Ask) }
func BenchmarkDecideURL1000(b *testing.B)  { benchDecide(b, 1000, "WebFetch", benchURL, session.Ask) }
func BenchmarkDecideBash100(b *testing.B)  { benchDecide(b, 100, "Bash", benchBash, session.Ask) }
func BenchmarkDecideBash1000(b *testing.B) { benchDecide(b, 1000, "Bash", benchBash, session.Ask) }

func benchNew(b *testing.B, n int) {
	f := newFixture(b)
	s := benchSettings(n)
	opts := tcase{}.options(f)
	cfg := config.DefaultConfig()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := session.New(cfg, s, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew100(b *testing.B)  { benchNew(b, 100) }
func BenchmarkNew1000(b *testing.B) { benchNew(b, 1000) }
