package command

import "strings"

// psCmdlets are PowerShell's commands and aliases that do what a program a
// Bash rule names does: Claude Code's PowerShell tool meets the deny and ask
// rules (and the default deny rules) written for Bash under those names.
var psCmdlets = map[string]string{
	"remove-item": "rm", "ri": "rm", "del": "rm", "erase": "rm", "rd": "rm", "rmdir": "rm",
	"get-content": "cat", "gc": "cat", "type": "cat", "cat": "cat",
	"set-content": "tee", "sc": "tee", "add-content": "tee -a", "ac": "tee -a", "out-file": "tee",
	"copy-item": "cp", "copy": "cp", "cpi": "cp", "move-item": "mv", "move": "mv", "mi": "mv",
	"rename-item": "mv", "ren": "mv", "rni": "mv", "new-item": "touch", "ni": "touch",
	"invoke-webrequest": "curl", "iwr": "curl", "invoke-restmethod": "curl", "irm": "curl",
	"invoke-expression": "eval", "iex": "eval", "set-location": "cd", "sl": "cd", "chdir": "cd",
	"get-childitem": "ls", "gci": "ls", "dir": "ls", "select-string": "grep", "sls": "grep",
}

// psParams are PowerShell parameters with the option the Bash program takes.
var psParams = map[string]string{"-recurse": "-r", "-force": "-f", "-path": "", "-literalpath": "", "-destination": ""}

// posixSpelling rewrites a PowerShell command line's commands and the
// parameters above into the programs and options a Bash rule names; the
// rest of the line is left as it is.
func posixSpelling(line string) string {
	var b strings.Builder
	atCmd := true
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && !strings.ContainsRune(" \t;|&(){}\n", rune(line[j])) {
			j++
		}
		if j == i {
			c := line[i]
			b.WriteByte(c)
			if strings.ContainsRune(";|&({\n", rune(c)) {
				atCmd = true
			}
			i++
			continue
		}
		word := line[i:j]
		lw := strings.ToLower(word)
		switch {
		case atCmd:
			if u, ok := psCmdlets[lw]; ok {
				word = u
			}
			atCmd = false
		default:
			if u, ok := psParams[lw]; ok {
				word = u
			}
			// a Windows path: .\.env is ./.env
			word = strings.ReplaceAll(word, `\`, "/")
		}
		b.WriteString(word)
		i = j
	}
	return b.String()
}
