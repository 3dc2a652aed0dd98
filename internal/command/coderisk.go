package command

import (
	"strings"
	"sync"
)

// codeRisk reads inline code of a language for what the engine cannot
// follow. why (worded to follow "the code given to python3 ") makes the
// command unseen: the code can start a command, open or change a file under
// a name it computes, load code from elsewhere, or reach those through a
// name it computes (getattr, a computed property, a symbolic reference).
// files, when why is "", says the code only reads or writes files under
// names computed at run time: file rules fire, command rules do not.
//
// Each language is read by its own rules, on its words (identifiers) rather
// than on substrings, so everyday one-liners stay seen: python3 -c "import
// json,sys; print(json.load(sys.stdin)['x'])", node -e
// 'console.log(process.version)', awk '!seen[$0]++', perl -ne 'print if
// /x/'. The reading is a heuristic that leans strict: a word it does not
// trust makes the code unseen even where it is harmless. Languages without
// rules of their own (lua, R, julia, vim, gdb ...) use the substring list
// codeEscapes.
func codeRisk(lang, code string) (why, files string) {
	var w string
	switch lang {
	case "python":
		w = pythonRisk(code)
	case "js":
		w = jsRisk(code)
	case "perl":
		w = perlRisk(code)
	case "ruby":
		w = rubyRisk(code)
	case "php":
		w = phpRisk(code)
	case "awk":
		why, files, _ := awkRisk(code)
		return why, files
	case "sql":
		w = sqlRisk(code)
	default:
		for _, esc := range codeEscapes {
			if strings.Contains(code, esc) {
				w = strings.TrimSpace(esc)
				break
			}
		}
	}
	if w == "" {
		return "", ""
	}
	return "can run commands or open files (" + w + ")", ""
}

// token is one identifier of some code, with the characters around it.
type token struct {
	s          string
	at, end    int
	prev, next byte // the nearest non-blank characters before and after (0 at the ends)
}

func isIdentByte(b byte, dollar bool) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || dollar && b == '$'
}

// idents returns the identifiers of code ($ counts as a letter when dollar
// is set, as in JavaScript).
func idents(code string, dollar bool) []token {
	var out []token
	for i := 0; i < len(code); {
		b := code[i]
		if !isIdentByte(b, dollar) || b >= '0' && b <= '9' {
			i++
			continue
		}
		j := i
		for j < len(code) && isIdentByte(code[j], dollar) {
			j++
		}
		t := token{s: code[i:j], at: i, end: j}
		for k := i - 1; k >= 0; k-- {
			if c := code[k]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				t.prev = c
				break
			}
		}
		for k := j; k < len(code); k++ {
			if c := code[k]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
				t.next = c
				break
			}
		}
		out = append(out, t)
		i = j
	}
	return out
}

// maskStrings blanks the contents of the string literals of code delimited
// by the quote characters in quotes (keeping the quotes and the length), and
// from comment to the end of the line when comment is not 0. A string whose
// prefix letters contain one in keep (Python's f"...{code}...") is left as
// it is.
func maskStrings(code, quotes string, comment byte, keep string) string {
	b := []byte(code)
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if comment != 0 && ch == comment {
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
			continue
		}
		if strings.IndexByte(quotes, ch) < 0 {
			continue
		}
		p := i
		for p > 0 && isIdentByte(b[p-1], false) {
			p--
		}
		prefix := strings.ToLower(string(b[p:i]))
		masked := keep == "" || !strings.ContainsAny(prefix, keep) || len(prefix) > 3
		n := 1
		if i+2 < len(b) && b[i+1] == ch && b[i+2] == ch && comment == '#' {
			n = 3 // Python's triple quotes
		}
		j := i + n
		for j < len(b) {
			if b[j] == '\\' {
				if masked && j+1 < len(b) {
					b[j], b[j+1] = ' ', ' '
				}
				j += 2
				continue
			}
			if b[j] == ch && (n == 1 || j+2 < len(b) && b[j+1] == ch && b[j+2] == ch) {
				break
			}
			if masked && b[j] != '\n' {
				b[j] = ' '
			}
			j++
		}
		i = j + n - 1
	}
	return string(b)
}

func wordSet(list string) *words {
	return &words{list: list}
}

// words is a set of words made on first use: the inline-code sets are
// needed by few calls, and making them all when the package loads would
// cost every process start.
type words struct {
	list string
	once sync.Once
	m    map[string]bool
}

func (ws *words) has(w string) bool {
	ws.once.Do(func() {
		ws.m = map[string]bool{}
		for _, f := range strings.Fields(ws.list) {
			ws.m[f] = true
		}
	})
	return ws.m[w]
}

// Python: the words that start a command, open a file, load code or reach a
// name computed at run time; a module outside pyModules; any word with a
// double underscore; a private attribute (._x); frame and code attributes
// (.f_globals, .tb_frame). Words inside string literals do not count (the
// words that would turn a string into a name are themselves on the list),
// except in f-strings. open() is fine with a string literal for its name:
// the literal is checked as a file name.
var pyWords = wordSet(`os subprocess system popen spawn exec execfile eval compile getattr setattr delattr
	globals locals vars modules builtins bltns breakpoint breakpointhook help importlib ctypes pty shutil
	pathlib io codecs pickle marshal shelve runpy path attrgetter methodcaller fork socket types inspect
	get_field singledispatch singledispatchmethod get_type_hints ForwardRef gc`)

// pyModules are the modules inline Python may import and stay seen.
var pyModules = wordSet(`json sys re math cmath datetime time calendar collections itertools functools
	operator string textwrap random hashlib hmac base64 binascii uuid decimal fractions statistics struct
	unicodedata pprint html keyword copy heapq bisect array zlib secrets shlex difflib ipaddress colorsys
	numbers csv glob fnmatch tomllib platform`)

var pyOpenLiteral = newLazyRE(`^\s*\(\s*(?:'[^'\\\n]*'|"[^"\\\n]*")\s*[,)]`)

var pyPrivate = []string{"f_", "tb_", "gi_", "cr_", "ag_", "co_", "func_", "im_"}

func pythonRisk(code string) string {
	m := maskStrings(code, `'"`, '#', "f")
	if nonASCII(m) {
		return "a non-ASCII name" // Python reads ｅｘｅｃ as exec
	}
	for _, t := range idents(m, false) {
		w := t.s
		switch {
		case strings.Contains(w, "__"):
			return w
		case t.prev == '.' && w[0] == '_':
			return "." + w
		case w == "open":
			if !pyOpenLiteral.MatchString(code[t.end:]) {
				return "open with a computed name"
			}
		case w == "compile" && t.prev == '.':
			// re.compile, not the built-in
		case (w == "file" || w == "input" || w == "raw_input" || w == "reload") && t.next == '(':
			return w
		case pyWords.has(w):
			return w
		case w == "import" && !pyFromStatement(m[:t.at]):
			if mod := pyImports(m[t.end:]); mod != "" {
				return "import " + mod
			}
		case w == "from":
			if mod, ok := pyFrom(m[t.end:]); ok && !pyModule(mod) {
				return "import " + mod
			}
		}
		if t.prev == '.' {
			for _, p := range pyPrivate {
				if strings.HasPrefix(w, p) {
					return "." + w
				}
			}
		}
	}
	return ""
}

func pyModule(mod string) bool {
	root, _, _ := strings.Cut(mod, ".")
	return pyModules.has(root) || mod == "urllib.parse"
}

// pyImports returns the first module an import statement names that is not
// trusted ("" when all are).
func pyImports(rest string) string {
	if i := strings.IndexAny(rest, ";\n"); i >= 0 {
		rest = rest[:i]
	}
	for _, part := range strings.Split(strings.Trim(strings.TrimSpace(rest), "()"), ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		if !pyModule(f[0]) {
			return f[0]
		}
	}
	return ""
}

// pyFrom reads `from MODULE import ...`: the module, and whether the words
// are such a statement (from also stands in `yield from`, `raise X from Y`).
func pyFrom(rest string) (string, bool) {
	f := strings.Fields(rest)
	if len(f) >= 2 && f[1] == "import" {
		return f[0], true
	}
	if len(f) >= 1 && strings.HasPrefix(f[0], ".") {
		return f[0], true // a relative import
	}
	return "", false
}

// pyFromStatement reports whether the statement before an import keyword
// began with from (its names are then attributes, not modules).
func pyFromStatement(before string) bool {
	if i := strings.LastIndexAny(before, ";\n"); i >= 0 {
		before = before[i+1:]
	}
	return strings.HasPrefix(strings.TrimSpace(before), "from ")
}

// nonASCII reports whether code holds a byte outside ASCII.
func nonASCII(code string) bool {
	for i := 0; i < len(code); i++ {
		if code[i] >= 0x80 {
			return true
		}
	}
	return false
}
