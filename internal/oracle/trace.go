package oracle

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Effects are what a line really did, as the kernel reported it.
type Effects struct {
	Reads    []string   // files and folders opened for reading (resolved)
	Writes   []string   // created, written, truncated, removed, renamed, linked, made folders
	Links    []string   // files a hard link was made to (reached under another name)
	Execs    [][]string // argv of every program run after the line's shell
	Connects []string   // addresses connected to
	Output   string     // stdout and stderr (the first MiB)
	Exit     int
	TimedOut bool
}

// markerPrefix is the file the driver opens before each line (the open
// fails; the trace shows it): "/oracle/in/line-<i>".
const markerPrefix = "/oracle/in/line-"

// event is one finished system call of one process.
type event struct {
	pid, name string
	args      []string
	ret       result
}

// parseTrace reads strace -f -y output of a batch and returns each line's
// effects, in the order the lines ran. A process belongs to the line whose
// shell it descends from (the clone results name the children, in strace's
// own pid namespace); what the driver does between lines belongs to none.
func parseTrace(trace []byte, cwd string) []*Effects {
	var effs []*Effects
	var seen []map[string]bool
	pending := map[string]string{} // pid -> the start of an unfinished call
	lineOf := map[string]int{}     // pid -> the line it belongs to
	cwds := map[string]string{}    // pid -> its working folder, for calls without a dirfd
	early := map[string][]event{}  // events of a pid whose clone the trace has not finished printing
	cur, rootDue := -1, false
	var apply func(ev event)
	assign := func(pid string, line int, dir string) {
		lineOf[pid] = line
		cwds[pid] = dir
		evs := early[pid]
		delete(early, pid)
		for _, ev := range evs {
			apply(ev)
		}
	}
	apply = func(ev event) {
		i, ok := lineOf[ev.pid]
		if !ok {
			if ev.name == "execve" && rootDue && len(ev.args) > 0 && unquote(ev.args[0]) == lineShell && ev.ret.ok() {
				rootDue = false
				assign(ev.pid, cur, cwd)
				return
			}
			if ev.name == "open" || ev.name == "openat" {
				if len(ev.args) > 1 && strings.HasPrefix(unquote(ev.args[1]), markerPrefix) || len(ev.args) > 0 && strings.HasPrefix(unquote(ev.args[0]), markerPrefix) {
					cur++
					rootDue = true
					effs = append(effs, &Effects{})
					seen = append(seen, map[string]bool{})
					return
				}
			}
			early[ev.pid] = append(early[ev.pid], ev)
			return
		}
		if !ev.ret.ok() {
			return
		}
		if ev.name == "clone" || ev.name == "clone3" || ev.name == "fork" || ev.name == "vfork" {
			if child := ev.ret.outer; child != "" {
				assign(child, i, cwds[ev.pid])
			}
			return
		}
		record(effs[i], seen[i], cwds, ev)
	}
	for _, raw := range strings.Split(string(trace), "\n") {
		pid, rest, ok := strings.Cut(raw, " ")
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " ")
		if i := strings.Index(rest, " <unfinished ...>"); i >= 0 {
			pending[pid] = rest[:i]
			continue
		}
		if strings.HasPrefix(rest, "<... ") {
			j := strings.Index(rest, " resumed>")
			if j < 0 {
				continue
			}
			rest = pending[pid] + rest[j+len(" resumed>"):]
			delete(pending, pid)
		}
		name, args, ret := splitCall(rest)
		if name == "" {
			continue
		}
		apply(event{pid: pid, name: name, args: args, ret: ret})
	}
	for _, e := range effs {
		sort.Strings(e.Reads)
		sort.Strings(e.Writes)
	}
	return effs
}

// record adds one call's effect to a line's.
func record(eff *Effects, seen map[string]bool, cwds map[string]string, ev event) {
	add := func(list *[]string, kind, p string) {
		if p == "" || seen[kind+p] {
			return
		}
		seen[kind+p] = true
		*list = append(*list, p)
	}
	name, args, ret, pid := ev.name, ev.args, ev.ret, ev.pid
	here := cwds[pid]
	switch name {
	case "execve", "execveat":
		argi := 1
		if name == "execveat" {
			argi = 2
		}
		if len(args) > argi {
			eff.Execs = append(eff.Execs, parseArgv(args[argi]))
		}
	case "chdir":
		if len(args) > 0 {
			cwds[pid] = resolve(here, "", unquote(args[0]))
		}
	case "fchdir":
		if len(args) > 0 {
			if _, p := fdPath(args[0]); p != "" {
				cwds[pid] = p
			}
		}
	case "open", "openat", "openat2", "creat":
		flags := ""
		if name == "openat" || name == "openat2" {
			if len(args) > 2 {
				flags = args[2]
			}
		} else if name == "open" && len(args) > 1 {
			flags = args[1]
		} else if name == "creat" {
			flags = "O_WRONLY|O_CREAT|O_TRUNC"
		}
		p := ret.path
		if p == "" {
			return
		}
		if strings.Contains(flags, "O_PATH") {
			return
		}
		if strings.Contains(flags, "O_WRONLY") || strings.Contains(flags, "O_RDWR") || strings.Contains(flags, "O_CREAT") || strings.Contains(flags, "O_TRUNC") {
			add(&eff.Writes, "w", p)
		}
		if !strings.Contains(flags, "O_WRONLY") {
			add(&eff.Reads, "r", p)
		}
	case "unlink", "rmdir", "mkdir", "truncate":
		if len(args) > 0 {
			add(&eff.Writes, "w", resolve(here, "", unquote(args[0])))
		}
	case "unlinkat", "mkdirat":
		if len(args) > 1 {
			add(&eff.Writes, "w", resolveAt(here, args[0], args[1]))
		}
	case "ftruncate":
		if len(args) > 0 {
			if _, p := fdPath(args[0]); p != "" {
				add(&eff.Writes, "w", p)
			}
		}
	case "rename":
		if len(args) > 1 {
			add(&eff.Writes, "w", resolve(here, "", unquote(args[0])))
			add(&eff.Writes, "w", resolve(here, "", unquote(args[1])))
		}
	case "renameat", "renameat2":
		if len(args) > 3 {
			add(&eff.Writes, "w", resolveAt(here, args[0], args[1]))
			add(&eff.Writes, "w", resolveAt(here, args[2], args[3]))
		}
	case "link":
		if len(args) > 1 {
			add(&eff.Links, "l", resolve(here, "", unquote(args[0])))
			add(&eff.Writes, "w", resolve(here, "", unquote(args[1])))
		}
	case "linkat":
		if len(args) > 3 {
			add(&eff.Links, "l", resolveAt(here, args[0], args[1]))
			add(&eff.Writes, "w", resolveAt(here, args[2], args[3]))
		}
	case "symlink":
		if len(args) > 1 {
			add(&eff.Writes, "w", resolve(here, "", unquote(args[1])))
		}
	case "symlinkat":
		if len(args) > 2 {
			add(&eff.Writes, "w", resolveAt(here, args[1], args[2]))
		}
	case "connect":
		if len(args) > 1 {
			eff.Connects = append(eff.Connects, args[1])
		}
	}
}

// result is a call's return as strace -y prints it.
type result struct {
	num   string // the number returned ("" for -1 / ?)
	outer string // a new process's pid in strace's namespace
	path  string // the path of a returned fd
	err   bool
}

func (r result) ok() bool { return !r.err }

// splitCall splits "name(args) = ret" into the call's name, its top-level
// arguments and its result.
func splitCall(s string) (name string, args []string, ret result) {
	open := strings.IndexByte(s, '(')
	if open <= 0 || strings.ContainsAny(s[:open], " <>") {
		return "", nil, result{}
	}
	name = s[:open]
	depth, inStr := 0, false
	start := open + 1
	end := -1
	for i := open; i < len(s) && end < 0; i++ {
		c := s[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 && c == ')' {
				if t := strings.TrimSpace(s[start:i]); t != "" {
					args = append(args, t)
				}
				end = i
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if end < 0 {
		return "", nil, result{}
	}
	r := strings.TrimSpace(s[end+1:])
	if !strings.HasPrefix(r, "=") {
		return "", nil, result{}
	}
	r = strings.TrimSpace(r[1:])
	if strings.HasPrefix(r, "-1") || strings.HasPrefix(r, "?") {
		return name, args, result{err: true}
	}
	num := r
	if i := strings.IndexAny(r, " <"); i >= 0 {
		num = r[:i]
	}
	ret = result{num: num}
	if i := strings.IndexByte(r, '<'); i >= 0 {
		if j := strings.LastIndexByte(r, '>'); j > i {
			ret.path = r[i+1 : j]
		}
	}
	if i := strings.Index(r, "/* "); i >= 0 {
		if f := strings.Fields(r[i+3:]); len(f) > 0 {
			ret.outer = f[0]
		}
	}
	if _, err := strconv.Atoi(num); err != nil && !strings.HasPrefix(num, "0x") {
		ret.num = ""
	}
	return name, args, ret
}

// fdPath splits a dirfd argument such as AT_FDCWD</w/proj> or 3</w/proj>.
func fdPath(arg string) (fd, path string) {
	i := strings.IndexByte(arg, '<')
	if i < 0 || !strings.HasSuffix(arg, ">") {
		return arg, ""
	}
	return arg[:i], arg[i+1 : len(arg)-1]
}

// resolveAt resolves a path argument against its dirfd argument.
func resolveAt(cwd, dirfd, p string) string {
	_, dir := fdPath(dirfd)
	return resolve(cwd, dir, unquote(p))
}

func resolve(cwd, dir, p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if dir == "" {
		dir = cwd
	}
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, p)
}

// unquote reads a C string as strace prints it ("..." with escapes; a
// string cut at -s ends in "...": kept as far as it goes).
func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' {
		return s
	}
	s = strings.TrimSuffix(s, "...")
	if len(s) >= 2 && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	} else {
		s = s[1:]
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'v':
			b.WriteByte('\v')
		case 'f':
			b.WriteByte('\f')
		case 'x':
			if i+2 < len(s) {
				if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
					b.WriteByte(byte(v))
					i += 2
					continue
				}
			}
			b.WriteByte('x')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 8)
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// parseArgv reads an argv array ["a", "b", ...].
func parseArgv(s string) []string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "[") {
		return nil
	}
	var out []string
	for i := 1; i < len(s); i++ {
		if s[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) {
			break
		}
		end := j + 1
		if strings.HasPrefix(s[end:], "...") {
			end += 3
		}
		out = append(out, unquote(s[i:end]))
		i = end - 1
	}
	return out
}
