// Package pathglob compiles the path globs of the rule language (src/**,
// *.env, {a,b}/**) and matches paths against them in time linear in the
// path. It knows nothing of calls or rules.
package pathglob

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gobwas/glob"
)

// Glob is a compiled path pattern. Matching runs on Go's regexp (RE2),
// whose time is linear in the path: the glob library backtracks, and a
// pattern with several ** against a path of a few hundred folders takes
// seconds to minutes (O(n^k) for k stars). The regexp is a translation of
// the same syntax (glob.Compiler with '/' as separator and Globstar), and
// the tests check the two agree.
type Glob struct {
	Text string
	Lib  *glob.Pattern // the glob library's compilation: validates the syntax
	expr string        // the linear-time translation, compiled on first use
	Tail string        // the literal end every match ends with (a cheap first test)
	Need string        // a literal run every match holds (the next cheap test)
	Full bool          // the slow twin: Match takes none of the cheap tests first

	once sync.Once
	re   *regexp.Regexp
}

// regexp compiles the translation once: settings are loaded more often than
// most of their path rules meet a call.
func (p *Glob) regexp() *regexp.Regexp {
	p.once.Do(func() { p.re = regexp.MustCompile(p.expr) })
	return p.re
}

// Match reports whether the subject matches the pattern. It passes first
// over a subject that lacks the pattern's literal end or run, unless the
// glob is the slow twin (Full); MatchFull is that twin.
func (p *Glob) Match(s string) bool {
	if !p.Full && (!strings.HasSuffix(s, p.Tail) || !strings.Contains(s, p.Need)) {
		return false // (neither holds U+FFFD: bytes compare as runes do)
	}
	return p.MatchFull(s)
}

// MatchFull matches the subject against the whole pattern, without the
// cheap tests of Match (the reference the tests hold Match to).
func (p *Glob) MatchFull(s string) bool {
	if !utf8.ValidString(s) && strings.ContainsRune(p.Text, utf8.RuneError) {
		// regexp reads an invalid byte as U+FFFD, which the pattern names:
		// only the glob library tells them apart (bounded: such a subject
		// is a crafted one, and a cut-off match fails).
		if len(s) > MaxFallback {
			return false
		}
		return p.Lib.Match(s)
	}
	return p.regexp().MatchString(s)
}

// literalRun is the longest run of literal characters of pattern p that
// every subject it matches holds: outside braces and classes, not escaped,
// and without a '/' that follows "**" (which may stand for no folder, the
// '/' included). It is empty when the run would hold U+FFFD, which an
// invalid byte of a subject may stand for.
func literalRun(p string) string {
	best, start, depth := "", 0, 0
	end := func(i int) {
		if depth == 0 && i-start > len(best) {
			best = p[start:i]
		}
	}
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			end(i)
			i++
			start = i + 1
		case '{':
			end(i)
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
			start = i + 1
		case '[':
			end(i)
			i = classEnd(p, i)
			start = i + 1
		case '*', '?':
			end(i)
			j := i
			for j+1 < len(p) && p[j+1] == '*' {
				j++
			}
			if j > i && j+1 < len(p) && p[j+1] == '/' {
				j++
			}
			i = j
			start = i + 1
		}
	}
	end(len(p))
	if strings.ContainsRune(best, utf8.RuneError) {
		return ""
	}
	return best
}

// classEnd returns the index of the ']' that closes the class p[i] ('[')
// opens, read by globClass itself, the translation's reader ([0-]] is the
// range from '0' to ']'); len(p) when it does not read one (the pattern
// does not compile then).
func classEnd(p string, i int) int {
	rs := []rune(p[i:])
	n, err := globClass(&strings.Builder{}, rs)
	if err != nil {
		return len(p)
	}
	return i + len(string(rs[:n])) - 1
}

// literalTail is the end of pattern p after its last special character:
// every subject p matches ends with it. A '/' it starts with is left out:
// after "**" (or "**\/") that '/' goes with the folders the stars stand
// for, which may be none (**/.env matches .env itself). It is empty when
// that end holds U+FFFD, which an invalid byte of a subject may stand for.
func literalTail(p string) string {
	i := strings.LastIndexAny(p, `*?[]{}\,`)
	tail := p[i+1:]
	if i >= 0 {
		tail = strings.TrimPrefix(tail, "/")
	}
	if strings.ContainsRune(tail, utf8.RuneError) {
		return ""
	}
	return tail
}

// MaxFallback bounds the subjects the backtracking glob library sees.
const MaxFallback = 256

// Compile compiles p with '/' as separator in globstar mode, so that
// "**/" may also match no folder at all (src/**/*.ts matches src/a.ts).
func Compile(p string) (*Glob, error) {
	if !utf8.ValidString(p) {
		return nil, fmt.Errorf("the pattern is not valid UTF-8")
	}
	g, err := (&glob.Compiler{Separators: []rune{'/'}, Globstar: true}).Compile(p)
	if err != nil {
		return nil, err
	}
	expr, err := globExpr(p)
	if err != nil {
		return nil, err
	}
	// checked here so the lazy compilation cannot fail
	if _, err := syntax.Parse(expr, syntax.Perl); err != nil {
		return nil, fmt.Errorf("the pattern cannot be matched: %v", err)
	}
	return &Glob{Text: p, Lib: g, expr: expr, Tail: literalTail(p), Need: literalRun(p)}, nil
}

// maxGlobAlternatives bounds the alternatives a pattern's braces expand to.
const maxGlobAlternatives = 256

// globExpr translates a glob into an anchored regular expression. Braces
// are expanded first ({a,b}/** is a/** or b/**), so each alternative is
// translated on its own, where
//
//   - any run of characters but '/'
//     **           (two or more stars) any run of characters; at the start or
//     after a '/', and followed by a '/', it may also stand for no
//     folder at all, the '/' included
//     ?            one character but '/'
//     [abc] [a-z]  one of; [!...] none of
//     \x           x itself
func globExpr(p string) (string, error) {
	alts, err := expandGlobBraces([]rune(p), nil)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(`\A(?:`)
	for k, alt := range alts {
		if k > 0 {
			b.WriteByte('|')
		}
		if err := globAlt(&b, alt); err != nil {
			return "", err
		}
	}
	b.WriteString(`)\z`)
	return b.String(), nil
}

// braceEdge marks where a brace stood in an expanded alternative (no
// valid rune has its value).
const braceEdge rune = -1

// expandGlobBraces appends the brace-free alternatives of rs to out.
func expandGlobBraces(rs []rune, out [][]rune) ([][]rune, error) {
	open := -1
	for i := 0; i < len(rs) && open < 0; i++ {
		switch rs[i] {
		case '\\':
			i++
		case '[':
			n, err := globClass(&strings.Builder{}, rs[i:])
			if err != nil {
				return nil, err
			}
			i += n - 1
		case '{':
			open = i
		}
	}
	if open < 0 {
		if len(out) >= maxGlobAlternatives {
			return nil, fmt.Errorf("the braces expand to more than %d alternatives", maxGlobAlternatives)
		}
		return append(out, rs), nil
	}
	depth, from := 0, open+1
	var parts [][]rune
	for i := open; i < len(rs); i++ {
		switch rs[i] {
		case '\\':
			i++
		case '[':
			n, err := globClass(&strings.Builder{}, rs[i:])
			if err != nil {
				return nil, err
			}
			i += n - 1
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts, from = append(parts, rs[from:i]), i+1
			}
		case '}':
			depth--
			if depth > 0 {
				continue
			}
			parts = append(parts, rs[from:i])
			for _, part := range parts {
				// the pieces stay apart: stars either side of a brace
				// are stars of their own, not one run
				alt := append([]rune(nil), rs[:open]...)
				alt = append(append(append(append(alt, braceEdge), part...), braceEdge), rs[i+1:]...)
				var err error
				if out, err = expandGlobBraces(alt, out); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	}
	return nil, fmt.Errorf("unclosed '{'")
}

// globAlt writes one brace-free alternative.
func globAlt(b *strings.Builder, rs []rune) error {
	// prev is the rune before i, across brace edges
	prev := func(i int) rune {
		for i--; i >= 0 && rs[i] == braceEdge; i-- {
		}
		if i < 0 {
			return '/'
		}
		return rs[i]
	}
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case braceEdge:
		case '\\':
			if i+1 < len(rs) {
				i++
				b.WriteString(regexp.QuoteMeta(string(rs[i])))
			}
		case '*':
			start := i
			for i+1 < len(rs) && rs[i+1] == '*' {
				i++
			}
			if start == i {
				b.WriteString(`[^/]*`)
				break
			}
			if prev(start) == '/' {
				j := i + 1
				// (a '/' after the brace that closes the star's
				// alternative does not count, as in the glob library)
				if j < len(rs) && rs[j] == '\\' {
					j++
				}
				if j < len(rs) && rs[j] == '/' {
					b.WriteString(`(?:(?s:.*)/)?`)
					i = j
					break
				}
			}
			b.WriteString(`(?s:.*)`)
		case '?':
			b.WriteString(`[^/]`)
		case '[':
			n, err := globClass(b, rs[i:])
			if err != nil {
				return err
			}
			i += n - 1
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return nil
}

// globClass writes the [...] class rs starts with and returns how many
// runes it took: a range [a-z] or a set [abc] (members may be escaped),
// either negated by a leading '!'.
func globClass(b *strings.Builder, rs []rune) (int, error) {
	i := 1
	neg := ""
	if i < len(rs) && rs[i] == '!' {
		neg, i = "^", i+1
	}
	if i+1 < len(rs) && rs[i+1] == '-' {
		if i+3 >= len(rs) || rs[i+3] != ']' || rs[i+2] < rs[i] {
			return 0, fmt.Errorf("bad range in '['")
		}
		fmt.Fprintf(b, `[%s\x{%x}-\x{%x}]`, neg, rs[i], rs[i+2])
		return i + 4, nil
	}
	var set []rune
	esc := false
	for ; i < len(rs); i++ {
		switch r := rs[i]; {
		case esc:
			set, esc = append(set, r), false
		case r == '\\':
			esc = true
		case r == ']':
			if len(set) == 0 {
				return 0, fmt.Errorf("empty '[]'")
			}
			b.WriteString("[" + neg)
			for _, c := range set {
				fmt.Fprintf(b, `\x{%x}`, c)
			}
			b.WriteString("]")
			return i + 1, nil
		default:
			set = append(set, r)
		}
	}
	return 0, fmt.Errorf("unclosed '['")
}
