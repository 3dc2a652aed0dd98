package pathglob

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestGlobAgrees checks the linear-time translation against the glob
// library on patterns and paths built from the syntax's pieces.
func TestGlobAgrees(t *testing.T) {
	pieces := []string{"a", "b", "/", "*", "**", "**/", "?", "[ab]", "[!a]", "[a-b]", "{a,b}", "{**/a,b/**}", "{a/,}", `\*`, ".", "x", "{a,{b,*}}", `[\]a]`, `[!\]]`, "]", "}", ",", `\/`, "**/a/", "a/**/"}
	chars := []string{"a", "b", "/", "/", ".", "x", "*", "ab", "é", "]", ","}
	rng := rand.New(rand.NewPCG(1, 2))
	fixed := []struct{ pat, s string }{
		{"src/**/*.ts", "src/a.ts"}, {"src/**/*.ts", "src/x/y/a.ts"}, {"src/**/*.ts", "src/a/ts"},
		{"**", ""}, {"**", "a/b"}, {"**/", "a/"}, {"a/**", "a"}, {"a/**", "a/"}, {"a/**", "a/b/c"},
		{".env", ".env"}, {"*.json", "a/b.json"}, {"/etc/**", "/etc/passwd"}, {"/**", "/x"},
		{"{src,lib}/**", "lib/x"}, {"{**/x,y}", "a/x"}, {"{**/x,y}", "x"}, {"[!.]*", ".x"},
	}
	for _, f := range fixed {
		checkGlob(t, f.pat, f.s)
	}
	for n := 0; n < 30000; n++ {
		var p strings.Builder
		stars := 0
		for k := rng.IntN(6); k >= 0; k-- {
			pc := pieces[rng.IntN(len(pieces))]
			if strings.Contains(pc, "*") {
				if stars >= 3 {
					continue
				}
				stars++
			}
			p.WriteString(pc)
		}
		var s strings.Builder
		for k := rng.IntN(8); k >= 0; k-- {
			s.WriteString(chars[rng.IntN(len(chars))])
		}
		checkGlob(t, p.String(), s.String())
	}
}

func checkGlob(t *testing.T, pat, s string) {
	t.Helper()
	g, err := Compile(pat)
	if err != nil {
		return
	}
	if got, want := g.regexp().MatchString(s), g.Lib.Match(s); got != want {
		t.Errorf("pattern %q (regexp %s) on %q: regexp %v, glob %v", pat, g.expr, s, got, want)
	}
	if got, want := g.Match(s), g.regexp().MatchString(s); got != want {
		t.Errorf("pattern %q on %q: Match (tail %q, run %q) %v, regexp %v", pat, s, g.Tail, g.Need, got, want)
	}
}

// TestLiteralRunReadsClassesAsTheTranslation: the literal run a pattern's
// fast test asks for is read past each class as globClass reads it. [0-]]
// is the range from '0' to ']', not the class [0-] then a literal ']': the
// run "]" made Match refuse "0/1", which the whole pattern matches (found by
// FuzzGlobTwin).
func TestLiteralRunReadsClassesAsTheTranslation(t *testing.T) {
	tests := []struct {
		pat, run string
		match    []string // subjects the pattern matches: Match must agree
	}{
		{"**/[0-]]*", "", []string{"0/1", "1", "a/]x", "Z"}},
		{"[0-]]x", "x", []string{"1x", "]x"}},
		{"[!0-]]ab", "ab", []string{"_ab", "aab"}},
		{"[é-ü]]z", "]z", []string{"ö]z"}},
		{"[ab]]cd", "]cd", []string{"a]cd"}},
		{`[\]]xy`, "xy", []string{"]xy"}},
		{"src/[a-c]/*.go", "src/", []string{"src/b/x.go"}},
	}
	for _, tt := range tests {
		if got := literalRun(tt.pat); got != tt.run {
			t.Errorf("literalRun(%q) = %q, want %q", tt.pat, got, tt.run)
		}
		g, err := Compile(tt.pat)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.pat, err)
		}
		for _, s := range tt.match {
			if !g.MatchFull(s) {
				t.Errorf("%q: the whole pattern does not match %q", tt.pat, s)
			}
			if !g.Match(s) {
				t.Errorf("%q: Match(%q) = false, the whole pattern matches", tt.pat, s)
			}
		}
	}
}
