package command

import (
	"path"
	"strings"
)

// wrapper describes a command that runs another command given after its own
// options: which of its short and long options take a value, and how many
// plain operands come before the command (timeout's DURATION, nice's old
// -N form is an option).
type wrapper struct {
	valueShort string   // short options taking a value (-u USER)
	valueLong  []string // long options taking a value when not given as --opt=value
	operands   int      // operands before the command
	envAssign  bool     // NAME=value words may follow the options
}

var wrappers = Table[map[string]wrapper]{Make: func() map[string]wrapper {
	return map[string]wrapper{
		"sudo":     {valueShort: "ugpCDhrtTRU", valueLong: []string{"--user", "--group", "--prompt", "--close-from", "--chdir", "--host", "--role", "--type", "--command-timeout", "--chroot", "--other-user"}, envAssign: true},
		"doas":     {valueShort: "uC"},
		"pkexec":   {valueLong: []string{"--user"}},
		"runuser":  {valueShort: "ugGcsw", valueLong: []string{"--user", "--group", "--supp-group", "--command", "--session-command", "--shell", "--whitelist-environment"}},
		"env":      {valueShort: "uCSP", valueLong: []string{"--unset", "--chdir", "--split-string", "--block-signal", "--default-signal", "--ignore-signal"}, envAssign: true},
		"nice":     {valueShort: "n", valueLong: []string{"--adjustment"}},
		"nohup":    {},
		"time":     {valueShort: "fo", valueLong: []string{"--format", "--output"}},
		"timeout":  {valueShort: "sk", valueLong: []string{"--signal", "--kill-after"}, operands: 1},
		"xargs":    {valueShort: "IiLlnPsdEeaS", valueLong: []string{"--arg-file", "--delimiter", "--eof", "--replace", "--max-lines", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"}},
		"command":  {},
		"exec":     {valueShort: "a"},
		"builtin":  {},
		"stdbuf":   {valueShort: "ioe", valueLong: []string{"--input", "--output", "--error"}},
		"ionice":   {valueShort: "cnp", valueLong: []string{"--class", "--classdata", "--pid"}},
		"setsid":   {},
		"chrt":     {operands: 1},
		"taskset":  {operands: 1},
		"unbuffer": {},
	}
}}

// optionalValue are short options whose value is glued on or absent (xargs -i, -l, -e).
var optionalValue = map[string]string{"xargs": "ile"}

// stripWrappers sees through wrapper commands. It returns the wrapped command
// (or words itself), the wrapper names met (sudo, env, ...), and the other
// word lists a deny rule should be tried against: every suffix after the
// first wrapper word, so an option this table does not know cannot hide the
// command behind it.
func stripWrappers(words []string) (args, met []string, alts [][]string) {
	return stripWrappersBy(words, nil)
}

// stripWrappersBy is stripWrappers asking the program table through w
// (progBits) first: a name that is no wrapper's is not looked for in
// wrappers (the table marks each of them progWrapper).
func stripWrappersBy(words []string, w *shellWalker) (args, met []string, alts [][]string) {
	args = words
	for len(args) > 0 {
		name := path.Base(args[0])
		if w != nil && w.progBits(name)&progWrapper == 0 {
			break
		}
		wr, ok := wrappers.Get()[name]
		if !ok {
			break
		}
		met = append(met, name)
		rest, good := skipWrapper(name, wr, args[1:])
		if !good {
			break
		}
		if len(rest) == 0 {
			break // `sudo -i`, `env`: the wrapper itself is the command
		}
		args = rest
	}
	if len(met) > 0 && len(words) > 1 {
		for i := 1; i < len(words); i++ {
			alts = append(alts, words[i:])
		}
	}
	return args, met, alts
}

func skipWrapper(name string, wr wrapper, rest []string) ([]string, bool) {
	i := 0
	for i < len(rest) {
		a := rest[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		if strings.HasPrefix(a, "--") {
			i++
			if strings.Contains(a, "=") {
				continue
			}
			for _, l := range wr.valueLong {
				if a == l {
					i++
					break
				}
			}
			continue
		}
		// a cluster of short options: the first one taking a value ends it
		i++
		for j := 1; j < len(a); j++ {
			if strings.IndexByte(optionalValue[name], a[j]) >= 0 {
				break
			}
			if strings.IndexByte(wr.valueShort, a[j]) >= 0 {
				if j == len(a)-1 {
					i++ // the value is the next word
				}
				break
			}
		}
	}
	if wr.envAssign {
		for i < len(rest) && isAssignment(rest[i]) {
			i++
		}
	}
	for n := 0; n < wr.operands && i < len(rest); n++ {
		i++
	}
	if i > len(rest) {
		return nil, false
	}
	return rest[i:], true
}

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for k, r := range w[:eq] {
		if r != '_' && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z') && !(k > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
