package matcher_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"vibing/internal/command"
	"vibing/internal/defaults"
	"vibing/internal/matcher"
)

// worstCaseBound is how long one decision may take on a pathological
// input: a bound on correctness (a crafted call must not stall the agent),
// not a speed benchmark; typical calls take microseconds, these well under a
// second. Generous, so that a loaded CI machine or -race cannot make it flaky;
// the blow-ups it guards against (exponential globs, quadratic paths) take
// minutes to hours.
const worstCaseBound = 10 * time.Second

// within runs f and fails the test if it has not returned after d.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("did not complete within %v", d)
	}
}

// TestWorstCase decides pathological calls against deny, ask and allow
// rules: each completes within worstCaseBound, the rules that must fire
// fire, and no pattern allows what it would not allow on a small input.
func TestWorstCase(t *testing.T) {
	loop := t.TempDir()
	for _, l := range [][2]string{{"l1", "l2"}, {"l2", "l1"}} {
		if err := os.Symlink(filepath.Join(loop, l[1]), filepath.Join(loop, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	deep := strings.Repeat("a/", 10000) + ".env"
	manyPaths := func() string {
		var b strings.Builder
		b.WriteString("cat")
		for i := 0; b.Len() < 250<<10; i++ {
			b.WriteString(" d/" + strings.Repeat("x", i%40) + "/f")
		}
		return b.String()
	}()
	tests := []struct {
		name     string
		tool     string
		arg      string
		fire     []string // deny/ask rules that must fire
		notAllow []string // allow rules that must not allow the call
		allow    []string // allow rules that must allow it
	}{
		{name: "1 MB command", tool: "Bash", arg: "echo " + strings.Repeat("a", 1<<20),
			fire: []string{"Bash(rm:*)", "Read(.env)", "/tool:Bash:(a+)+b/"}, notAllow: []string{"Bash(echo:*)", "Bash(echo *)", "/tool:Bash:echo a*/"}},
		{name: "200 KiB of words", tool: "Bash", arg: "echo " + strings.Repeat("a ", 100<<10) + "; rm -rf x",
			fire: []string{"Bash(rm -rf)", "Bash(rm:*)"}, notAllow: []string{"Bash(echo:*)"}},
		{name: "10k commands", tool: "Bash", arg: strings.Repeat("true; ", 9999) + "rm -rf /",
			fire: []string{"Bash(rm -rf)", "Bash(rm:*)", "/tool:Bash:rm .*/"}, notAllow: []string{"Bash(true)", "Bash(true:*)"}},
		{name: "10k commands, all allowed", tool: "Bash", arg: strings.TrimSuffix(strings.Repeat("true; ", 10000), "; "),
			allow: []string{"Bash(true)"}},
		{name: "100k commands", tool: "Bash", arg: strings.Repeat("a;", 100000),
			fire: []string{"Bash(rm:*)", "Read(.env)"}, notAllow: []string{"Bash(a)", "/tool:Bash:a/"}},
		{name: "200-deep substitutions", tool: "Bash", arg: strings.Repeat("echo $(", 200) + "rm x" + strings.Repeat(")", 200),
			fire: []string{"Bash(rm:*)"}, notAllow: []string{"Bash(echo:*)"}},
		{name: "200-deep subshells", tool: "Bash", arg: strings.Repeat("(", 200) + "rm x" + strings.Repeat(")", 200),
			fire: []string{"Bash(rm:*)"}},
		{name: "200-deep eval", tool: "Bash", arg: strings.Repeat("eval ", 200) + "rm x",
			fire: []string{"Bash(rm:*)"}, notAllow: []string{"Bash(eval:*)"}},
		{name: "9-deep sh -c", tool: "Bash", arg: nestShell("rm x", 9),
			fire: []string{"Bash(rm:*)"}, notAllow: []string{"Bash(sh:*)"}},
		{name: "deep arithmetic", tool: "Bash", arg: "echo " + strings.Repeat("$((", 2000) + "1" + strings.Repeat("))", 2000) + "; rm x",
			fire: []string{"Bash(rm:*)"}, notAllow: []string{"Bash(echo:*)"}},
		{name: "{a,b} x 30", tool: "Bash", arg: "rm " + strings.Repeat("{a,b}", 30),
			fire: []string{"Bash(rm -rf)", "Read(.env)"}, notAllow: []string{"Bash(rm a)"}},
		{name: "300 nested braces", tool: "Bash", arg: "rm " + strings.Repeat("{a,", 300) + "b" + strings.Repeat("}", 300),
			fire: []string{"Bash(rm -rf)"}},
		{name: "catastrophic regex, one command", tool: "Bash", arg: strings.Repeat("a", 5000),
			fire: []string{"/tool:Bash:(a+)+b/"}, notAllow: []string{"/tool:Bash:(a+)+b/"}},
		{name: "catastrophic regex, 5k commands", tool: "Bash", arg: strings.Repeat(strings.Repeat("a", 22)+"; ", 5000),
			fire: []string{"/tool:Bash:(a+)+b/", "/tool:Bash:(a+)+c/"}, notAllow: []string{"/tool:Bash:((a+)+b|a+)/"}},
		{name: "path of 10k folders", tool: "Read", arg: deep,
			fire: []string{"Read(.env)", "Read(**/a/**/a/**/a/**/a/**/.env)", "Read(a/**)"}, notAllow: []string{"Read(**/b/**/a/**/a/**/a/**/.env)"},
			allow: []string{"Read(**/a/**/a/**/a/**/a/**/.env)"}},
		{name: "Bash argument of 10k folders", tool: "Bash", arg: "cat " + deep + " " + deep + "x",
			fire: []string{"Read(.env)", "Read(**/a/**/a/**/a/**/a/**/.env)"}, notAllow: []string{"Bash(cat x)"}},
		{name: "many distinct paths", tool: "Bash", arg: manyPaths + " .env",
			fire: []string{"Read(.env)", "Read(x*x*x*x*x)", "Read(**/x*x*x*x*x/**)", "Read(d/**)"}, notAllow: []string{"Bash(cat d/f)"}, allow: []string{"Bash(cat:*)"}},
		{name: "symlink loop", tool: "Read", arg: filepath.Join(loop, "l1", strings.Repeat("l2/", 100), "x"),
			fire: []string{"Read(" + loop + "/**)"}, notAllow: []string{"Read(/elsewhere/**)"}},
		{name: "glob with many stars on a long name", tool: "Write", arg: strings.Repeat("a", 100000) + "x.env",
			fire: []string{"Write(a*a*a*a*a*a*a*a*a*x*.env)", "Write(*.env)"}, notAllow: []string{"Write(a*a*a*a*a*a*a*a*a*y*.env)"},
			allow: []string{"Write(a*a*a*a*a*a*a*a*a*x*.env)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			key := "command"
			if tc.tool != "Bash" {
				key = "file_path"
			}
			within(t, worstCaseBound, func() {
				c := command.Prepare(tc.tool, map[string]any{key: tc.arg}, testEnv)
				for _, text := range tc.fire {
					r := mustRule(t, text)
					for _, l := range []matcher.List{matcher.DenyList, matcher.AskList} {
						if !r.Match(c, l) {
							t.Errorf("%s %q does not fire (Err: %v)", l, text, c.Err)
						}
					}
				}
				for _, text := range tc.notAllow {
					r := mustRule(t, text)
					if r.Match(c, matcher.AllowList) {
						t.Errorf("allow %q matches", text)
					}
					if ok, _ := matcher.Covers([]*matcher.Rule{r}, c); ok {
						t.Errorf("allow %q covers the call", text)
					}
				}
				for _, text := range tc.allow {
					if ok, _ := matcher.Covers([]*matcher.Rule{mustRule(t, text)}, c); !ok {
						t.Errorf("allow %q does not cover the call (Err: %v)", text, c.Err)
					}
				}
				defaults.Deny(c)
				if s := matcher.Suggest(c); s == "Bash" {
					t.Errorf("Suggest = %q", s)
				}
			})
		})
	}
}

// nestShell wraps line in depth levels of sh -c '...'.
func nestShell(line string, depth int) string {
	for range depth {
		line = "sh -c '" + strings.ReplaceAll(line, "'", `'\''`) + "'"
	}
	return line
}

// TestSizeCap checks the 256 KiB cap: just under it a line is checked as
// usual; over it nothing is allowed by a pattern and deny rules fire.
func TestSizeCap(t *testing.T) {
	tests := []struct {
		size    int
		wantErr bool
	}{
		{256<<10 - 100, false},
		{256<<10 + 1, true},
	}
	allow, deny := mustRule(t, "Bash(echo:*)"), mustRule(t, "Bash(rm:*)")
	for _, tc := range tests {
		line := "echo " + strings.Repeat("a", tc.size-len("echo "))
		c := bash(line)
		if (c.Err != nil) != tc.wantErr {
			t.Fatalf("Prepare(%d bytes).Err = %v, want error %v", tc.size, c.Err, tc.wantErr)
		}
		if ok, _ := matcher.Covers([]*matcher.Rule{allow}, c); ok == tc.wantErr {
			t.Errorf("Covers(Bash(echo:*), %d bytes) = %v, want %v", tc.size, ok, !tc.wantErr)
		}
		if got := deny.Match(c, matcher.DenyList); got != tc.wantErr {
			t.Errorf("deny Bash(rm:*) on %d bytes of echo = %v, want %v", tc.size, got, tc.wantErr)
		}
	}
}
