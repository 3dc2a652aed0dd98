package command

import (
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// The source of a script: its parse by a pooled parser, and which bytes it
// holds of those the walk's word scans look for.

// pooledParser is a parser with the reader it reads a script through.
type pooledParser struct {
	p *syntax.Parser
	r strings.Reader
}

var parsers = sync.Pool{New: func() any {
	return &pooledParser{p: syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))}
}}

// parse parses one script with a pooled parser.
func parse(src string) (*syntax.File, error) {
	pp := parsers.Get().(*pooledParser)
	defer parsers.Put(pp)
	pp.r.Reset(src)
	f, err := pp.p.Parse(&pp.r, "")
	pp.r.Reset("") // the pool keeps no script alive
	return f, err
}

// srcBytes says which of the bytes some scans of a word look for its
// script holds nowhere: every literal part of a word is text of the
// script (the parser drops a line continuation, never adds a byte), so a
// byte the script lacks no literal holds, and a word without a $, ` or
// ( holds no command. (TestSrcBytesPremise holds the parser to that;
// TestSrcBytesTwin holds the walk to the walk without these answers.)
type srcBytes struct {
	known    bool // scanSrc ran (a walk made without it scans every word)
	noBrace  bool // no "{": no word has a brace expansion (braces)
	noEscape bool // no "\\": unescape leaves every literal as it is
	noGlob   bool // none of "*?[": no literal has a glob character
	noSubst  bool // none of "$`(": no word holds a statement (words)
}

// walkGates turns the answers of srcBytes on (the tests compare the walk
// without them, which scans every word).
var walkGates = true

// scanSrc works out s.text from s.src.
func (s *scriptWalk) scanSrc() {
	src := s.src
	has := func(c byte) bool { return strings.IndexByte(src, c) >= 0 }
	s.text = srcBytes{
		known:    walkGates,
		noBrace:  !has('{'),
		noEscape: !has('\\'),
		noGlob:   !has('*') && !has('?') && !has('['),
		noSubst:  !has('$') && !has('`') && !has('('),
	}
}

// CheckShell reports whether line parses as a Bash command line; the error
// says where it does not (an unbalanced quote, a missing done).
func CheckShell(line string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the command line could not be understood (%v)", p)
		}
	}()
	if _, err := parse(line); err != nil {
		return fmt.Errorf("the command line does not parse as shell: %v", err)
	}
	return nil
}
