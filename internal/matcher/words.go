package matcher

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word returns the literal text the shell would pass for w, and whether it
// holds an expansion that cannot be resolved statically (then the text is the
// source text). $HOME and $PWD resolve from the call's environment.
func (s *scriptWalk) word(w *syntax.Word) (string, bool) {
	var b strings.Builder
	if s.lit(&b, w.Parts, false) {
		return b.String(), false
	}
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start >= 0 && end <= len(s.src) && start <= end {
		return s.src[start:end], true
	}
	return b.String(), true
}

func (s *scriptWalk) lit(b *strings.Builder, parts []syntax.WordPart, quoted bool) bool {
	ok := true
	for _, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			if p.Dollar {
				v, good := ansiC(p.Value)
				b.WriteString(v)
				ok = ok && good
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			ok = s.lit(b, p.Parts, true) && ok
		case *syntax.ParamExp:
			if v, good := s.param(p); good {
				b.WriteString(v)
			} else {
				ok = false
			}
		default:
			ok = false
		}
	}
	return ok
}

func (s *scriptWalk) param(p *syntax.ParamExp) (string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Index != nil ||
		p.Slice != nil || p.Repl != nil || p.Exp != nil || p.Names != 0 || p.Flags != nil || p.NestedParam != nil {
		return "", false
	}
	switch p.Param.Value {
	case "HOME":
		if s.w.c.Env.Home != "" {
			return s.w.c.Env.Home, true
		}
	case "PWD":
		if dir, ok := s.w.dir.sure(); ok {
			return dir, true
		}
	}
	return "", false
}

// unescape removes the backslashes the shell removes.
func unescape(v string, quoted bool) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch != '\\' || i+1 >= len(v) {
			b.WriteByte(ch)
			continue
		}
		next := v[i+1]
		if quoted && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(ch)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

// ansiC decodes a $'...' string.
func ansiC(v string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch != '\\' || i+1 >= len(v) {
			b.WriteByte(ch)
			continue
		}
		i++
		switch c := v[i]; c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'x':
			j := i + 1
			for j < len(v) && j < i+3 && isHex(v[j]) {
				j++
			}
			if j == i+1 {
				return b.String(), false
			}
			n, _ := strconv.ParseUint(v[i+1:j], 16, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(v) && j < i+3 && v[j] >= '0' && v[j] <= '7' {
				j++
			}
			n, _ := strconv.ParseUint(v[i:j], 8, 16)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			// \u, \U, \c...: not decoded here; treat as unknown.
			return b.String(), false
		}
	}
	return b.String(), true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
