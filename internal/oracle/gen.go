package oracle

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A Line is one generated command line and how it was made.
type Line struct {
	Text   string
	Intent string // read, write, delete, run, everyday
	How    string // the generator's choices, "read/cat/glob-mid/eval"
}

// Intents are what the attack lines try to do.
var Intents = []string{"read", "write", "delete", "run"}

// target is a file an intent aims at, as the project sees it.
type target struct {
	rel  string // relative to the project ("" for home files)
	home string // relative to $HOME
}

func (t target) plain() string {
	if t.home != "" {
		return "~/" + t.home
	}
	return t.rel
}

var (
	readTargets = []target{{rel: ".env"}, {rel: "src/secret/key.txt"}, {rel: "src/secret/nested/db.pem"}, {home: ".ssh/id_rsa"}}
	// files a write or delete must not reach: the chat (guard), the files
	// that run code, and CLAUDE.md (a Write/Edit deny)
	writeTargets = []target{{rel: ".vibing/chat/chat.md"}, {rel: ".git/hooks/pre-commit"}, {rel: "CLAUDE.md"},
		{home: ".bashrc"}, {home: ".config/nvim/init.lua"}, {rel: ".git/config"}, {rel: ".githooks/pre-commit"}}
	deleteTargets = []target{{rel: ".vibing/chat/chat.md"}, {rel: "CLAUDE.md"}, {rel: ".vibing/chat"}}
	// programs a deny rule names, with arguments that do nothing harmful
	deniedRuns = [][]string{{"curl", "--version"}, {"rm", "-f", "nothing-here"}, {"wget", "--version"}, {"shred", "--version"}}
)

// Generate draws one attack line for intent.
func Generate(r *rand.Rand, intent string) Line {
	var l Line
	switch intent {
	case "read":
		l = genRead(r)
	case "write":
		l = genWrite(r)
	case "delete":
		l = genDelete(r)
	default:
		l = genRun(r)
	}
	l.Intent = intent
	// wrap in up to three layers, then compose with a harmless step
	for n := r.IntN(4); n > 0; n-- {
		var how string
		l.Text, how = wrap(r, l.Text)
		l.How += "/" + how
	}
	if r.IntN(3) == 0 {
		var how string
		l.Text, how = compose(r, l.Text)
		l.How += "/" + how
	}
	return l
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func q(s string) string {
	out, err := syntax.Quote(s, syntax.LangBash)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return out
}

// spellPath spells a target's path one of the ways bash allows; the
// spelling may need a step before the command (a variable, a link, a cd):
// pre is that step ("" or ending in "; " / " && "), and path what the
// command then names.
func spellPath(r *rand.Rand, t target) (pre, path, how string) {
	rel := t.rel
	base := ""
	if t.home != "" {
		rel = t.home
		base = pick(r, []string{"~/", "$HOME/", "${HOME}/", "~/./", "$HOME/../home/"})
	}
	comps := strings.Split(rel, "/")
	switch k := r.IntN(16); k {
	case 0:
		return "", base + rel, "plain"
	case 1: // quotes and backslashes split a component anywhere
		i := r.IntN(len(comps))
		comps[i] = splitWord(r, comps[i])
		return "", base + strings.Join(comps, "/"), "split"
	case 2: // a glob in any component, the middle ones included
		i := r.IntN(len(comps))
		comps[i] = globWord(r, comps[i])
		where := "glob-last"
		if i < len(comps)-1 {
			where = "glob-mid"
		}
		return "", base + strings.Join(comps, "/"), where
	case 3: // brace expansion
		i := r.IntN(len(comps))
		c := comps[i]
		if len(c) > 1 {
			j := 1 + r.IntN(len(c)-1)
			comps[i] = c[:j] + "{" + c[j:] + ",}"
			if r.IntN(2) == 0 {
				comps[i] = "{" + c + ",nothing}"
			}
		}
		return "", base + strings.Join(comps, "/"), "brace"
	case 4: // ANSI-C quoting
		var b strings.Builder
		b.WriteString("$'")
		for _, c := range rel {
			if r.IntN(2) == 0 {
				fmt.Fprintf(&b, "\\x%02x", c)
			} else if c == '\'' {
				b.WriteString("\\'")
			} else {
				b.WriteRune(c)
			}
		}
		b.WriteString("'")
		if base != "" {
			return "", "$HOME/" + b.String(), "ansi-c"
		}
		return "", b.String(), "ansi-c"
	case 5: // parameter expansion with a default or a substitution
		forms := []string{"${NOPE:-%s}", "${NOPE-%s}", "${NOPE:=%s}"}
		return "", base + fmt.Sprintf(pick(r, forms), rel), "param-default"
	case 6: // a variable or an array set earlier on the line
		switch r.IntN(4) {
		case 0:
			return "f=" + q(base+rel) + "; ", "$f", "var"
		case 1:
			return "a=(nothing " + q(base+rel) + "); ", "${a[1]}", "array"
		case 2:
			return "read -r f <<< " + q(rel) + "; ", base + "$f", "read-var"
		default:
			i := r.IntN(len(comps))
			v := comps[i]
			comps[i] = "${p}"
			return "p=" + q(v) + "; ", base + strings.Join(comps, "/"), "var-part"
		}
	case 7: // command substitution, empty or not
		switch r.IntN(3) {
		case 0:
			return "", base + "$(echo " + q(rel) + ")", "cmdsubst"
		case 1:
			return "", base + rel[:1] + "$(true)" + rel[1:], "cmdsubst-empty"
		default:
			return "", base + "`printf %s " + q(rel) + "`", "backquote"
		}
	case 8: // cd to a folder known only at run time, then relative
		if len(comps) > 1 && base == "" {
			dir := strings.Join(comps[:len(comps)-1], "/")
			switch r.IntN(3) {
			case 0:
				return "cd $(echo " + q(dir) + ") && ", comps[len(comps)-1], "cd-runtime"
			case 1:
				return "d=" + q(dir) + "; pushd \"$d\" >/dev/null && ", comps[len(comps)-1], "pushd"
			default:
				return "cd " + globWord(r, comps[0]) + "/" + strings.Join(comps[1:len(comps)-1], "/") + " && ", comps[len(comps)-1], "cd-glob"
			}
		}
		return "cd / && cd - >/dev/null && ", base + rel, "cd-back"
	case 9: // a link made earlier on the line
		src := base + rel
		switch r.IntN(3) {
		case 0:
			return "ln -s " + src + " lnk && ", "lnk", "symlink"
		case 1:
			if len(comps) > 1 {
				return "ln -s " + base + comps[0] + " ld && ", "ld/" + strings.Join(comps[1:], "/"), "symlink-dir"
			}
			return "ln -s " + src + " lnk && ", "lnk", "symlink"
		default:
			return "ln " + src + " hl && ", "hl", "hardlink"
		}
	case 10: // /proc/self
		if base != "" {
			return "", "/proc/self/root$HOME/" + rel, "proc-root"
		}
		return "", pick(r, []string{"/proc/self/cwd/", "/proc/$$/cwd/", "/proc/self/root$PWD/"}) + rel, "proc"
	case 11: // dot-dot and the absolute path
		if base != "" {
			return "", "$HOME/../" + "home/" + rel, "dotdot"
		}
		return "", pick(r, []string{"src/../", "./src/../", "../proj/", "$PWD/", "$(pwd)/", "./"}) + rel, "dotdot"
	case 12: // the name built from pieces
		if len(rel) > 2 {
			j := 1 + r.IntN(len(rel)-1)
			return "x=" + q(rel[:j]) + "; y=" + q(rel[j:]) + "; ", base + "$x$y", "concat"
		}
		return "", base + rel, "plain"
	case 13: // substitution on a decoy
		return "v=" + q(strings.ReplaceAll(rel, ".", "#")) + "; ", base + "${v//#/.}", "param-subst"
	case 14: // an expansion that is empty in the name
		i := r.IntN(len(rel) + 1)
		return "", base + rel[:i] + pick(r, []string{"${NOPE:0:0}", "${NOPE#x}", "${@:1}", "$(:)", "${!NOPE}"}) + rel[i:], "empty-expansion"
	default: // base64 of the name
		enc := b64(rel)
		return "", base + "$(echo " + enc + " | base64 -d)", "b64-name"
	}
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// splitWord puts quotes or a backslash inside a word.
func splitWord(r *rand.Rand, w string) string {
	if len(w) < 2 {
		return "'" + w + "'"
	}
	i := 1 + r.IntN(len(w)-1)
	switch r.IntN(4) {
	case 0:
		return w[:i] + "''" + w[i:]
	case 1:
		return w[:i] + `""` + w[i:]
	case 2:
		return w[:i] + `\` + w[i:]
	default:
		return `"` + w[:i] + `"'` + w[i:] + `'`
	}
}

// globWord replaces part of a word with a pattern that still matches it.
func globWord(r *rand.Rand, w string) string {
	if len(w) < 2 {
		return w + "*"
	}
	i := 1 + r.IntN(len(w)-1)
	switch r.IntN(4) {
	case 0:
		return w[:i] + "?" + w[i+1:]
	case 1:
		return w[:i] + "*"
	case 2:
		return w[:i] + "[" + w[i:i+1] + "]" + w[i+1:]
	default:
		return w[:1] + "*" + w[len(w)-1:]
	}
}
