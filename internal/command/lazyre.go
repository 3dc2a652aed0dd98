package command

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on first use: the ones that read
// inline code (awk, Python, JavaScript, Perl, Ruby, PHP) are needed by few
// calls, and compiling them all when the package loads would cost every
// process start (vibing-agent check) a millisecond.
type lazyRE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

func newLazyRE(expr string) *lazyRE { return &lazyRE{expr: expr} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// MatchString is regexp.Regexp.MatchString.
func (l *lazyRE) MatchString(s string) bool { return l.get().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (l *lazyRE) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }
