package command

import (
	"os"
	"path"
	"strings"
)

// The files a simple command writes, moves or deletes (Call.Modifies): the
// guard, deny/ask file rules, the default rules and approval previews all
// read this one list. A destination named as a folder (cp x src/, mv -t src
// x) is a write to src/x for each source; a write whose names are not known
// (cp -r into a folder, git clean, find -delete, wget -P) is a write to
// "something inside the folder" (Path.inside); find -name X -delete is one
// restricted to entries named X (Path.names, findnames.go). An archive
// unpacked or a patch applied writes the names it holds when it can be
// read, else the same (extract.go).

// modifies records the files a command changes, as written and after brace
// expansion.
func (s *scriptWalk) modifies(me int) {
	c := &s.w.c.Commands[me]
	s.modifiesArgs(me, c.Args, c.Dynamic)
	if c := &s.w.c.Commands[me]; c.More().expandedArgs != nil {
		s.modifiesArgs(me, c.More().expandedArgs, false)
	}
	// a word with several values the line gives it (cd a; … $PWD/x, f=a
	// || f=b; … "$f"): each spelling changes what it names
	for k := 0; k < len(s.w.c.Commands[me].More().Alts) && k < 64; k++ {
		alt := s.w.c.Commands[me].More().Alts[k]
		if len(alt) > 0 && !hasDynWord(alt) {
			s.modifiesArgs(me, alt, false)
		}
	}
}

// hasDynWord reports whether a word list still holds an expansion.
func hasDynWord(words []string) bool {
	for _, w := range words {
		if BytesExpansion.In(w) {
			return true
		}
	}
	return false
}

// fileWrites is what one command writes: whole paths, folders it writes
// unknown names inside, and archives or patches whose names may be read
// (extract.go).
type fileWrites struct {
	removes  bool // the inside writes remove existing entries (find -delete, git clean)
	paths    []string
	inside   []string
	named    []namedInside // inside, restricted to entries with a matching name (find -name X -delete)
	extracts []Extraction  // archives unpacked and patches applied (extract.go)
}

// namedInside is a folder below which only entries whose name matches are
// written.
type namedInside struct {
	dir   string
	names [][]namePat
}

func (s *scriptWalk) modifiesArgs(me int, args []string, dynamic bool) {
	if len(args) == 0 {
		return
	}
	name := path.Base(args[0])
	b := s.w.progBits(name)
	fw := writesOfBits(name, b, args[1:], s.dirExists)
	// a command that looks read-only (git diff, tree, xxd) but writes
	// through an option: an allow pattern for it covers the write only when
	// a Write or Edit rule allows that file, as for a redirection
	looksRO := b&progReader != 0 // (readers, as the program table holds them)
	if name == "git" {
		sub, _ := gitSubcommand(args[1:])
		looksRO = gitReads(sub)
	}
	for _, p := range fw.paths {
		dyn := dynamic && BytesExpansion.In(p)
		s.w.c.Modifies = s.appendPaths(s.w.c.Modifies, p, dyn)
		if name == "tee" || looksRO {
			s.w.c.Writes = s.appendPaths(s.w.c.Writes, p, dyn)
		}
	}
	for _, p := range fw.inside {
		n := len(s.w.c.Modifies)
		s.w.c.Modifies = s.appendInside(s.w.c.Modifies, p, dynamic)
		for i := n; i < len(s.w.c.Modifies); i++ {
			s.w.c.Modifies[i].Removes = fw.removes
		}
	}
	for _, nd := range fw.named {
		dyn := dynamic && BytesExpansion.In(nd.dir)
		names := nd.names
		for _, alt := range names {
			for _, n := range alt {
				if dynamic && BytesExpansion.In(n.glob) {
					names = nil // a pattern only known at run time
				}
			}
		}
		n := len(s.w.c.Modifies)
		s.w.c.Modifies = s.appendPaths(s.w.c.Modifies, nd.dir, dyn)
		for i := n; i < len(s.w.c.Modifies); i++ {
			s.w.c.Modifies[i].inside = true
			s.w.c.Modifies[i].Names = names
		}
	}
	for i := range fw.extracts {
		s.extractWrites(me, &fw.extracts[i], dynamic)
	}
}

// dirExists reports whether a destination word names an existing folder,
// seen from where the command runs.
func (s *scriptWalk) dirExists(p string) bool {
	dir := s.w.c.Env.Cwd
	if d, ok := s.w.dir.sure(); ok {
		dir = d
	}
	fi, err := os.Stat(ResolvePath(p, Env{Cwd: dir, Home: s.w.c.Env.Home}).Abs)
	return err == nil && fi.IsDir()
}

// operandsOf returns the words that are not options ("--" ends options).
func operandsOf(args []string) []string {
	var out []string
	end := false
	for _, a := range args {
		if !end && a == "--" {
			end = true
			continue
		}
		if !end && strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// optValue returns the values of an option given as -o VALUE, -oVALUE,
// --long VALUE or --long=VALUE.
func optValue(args []string, short string, long ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if short != "" && a == short && i+1 < len(args) {
			out = append(out, args[i+1])
			i++
			continue
		}
		if short != "" && len(short) == 2 && len(a) > 2 && a[0] == '-' && a[1] != '-' {
			// -oVALUE, or a cluster ending in the option (-qO FILE) or
			// holding its value after it (-qO-)
			if k := strings.IndexByte(a[1:], short[1]); k >= 0 {
				k++
				if k+1 < len(a) {
					out = append(out, a[k+1:])
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
					i++
				}
				continue
			}
		}
		for _, l := range long {
			if a == l && i+1 < len(args) {
				out = append(out, args[i+1])
				i++
			} else if v, ok := cutOpt(a, l); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// hasOptEq reports whether a is opt=VALUE (without building opt+"=").
func hasOptEq(a, opt string) bool {
	return len(a) > len(opt) && a[len(opt)] == '=' && a[:len(opt)] == opt
}

// cutOpt returns VALUE when a is opt=VALUE.
func cutOpt(a, opt string) (string, bool) {
	if hasOptEq(a, opt) {
		return a[len(opt)+1:], true
	}
	return "", false
}

func hasOpt(args []string, short byte, long ...string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if short != 0 && len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], short) >= 0 {
			return true
		}
		for _, l := range long {
			if a == l || hasOptEq(a, l) {
				return true
			}
		}
	}
	return false
}

// writesOf says what a program writes given its arguments (after its name).
func writesOf(name string, args []string, isDir func(string) bool) fileWrites {
	return writesOfBits(name, progs.Get()[name], args, isDir)
}

// writesOfBits is writesOf for a program whose bits in the program table
// (progs) the caller looked up.
func writesOfBits(name string, b progBits, args []string, isDir func(string) bool) fileWrites {
	var fw fileWrites
	if b&progWriter == 0 {
		// most commands: only an output option can make them write
		if b&progReader == 0 && name != "grep" && name != "ps" && hasOutputOpt(args) {
			fw.paths = append(fw.paths, optValue(args, "-o", "--output", "--out", "--outfile", "--output-file")...)
		}
		return fw
	}
	var ops []string
	switch name {
	case "git", "find", "tar", "bsdtar", "dd", "perl", "sort", "tree", "cpio", "split", "csplit", "unzip":
		// (their cases do not read the operands)
	default:
		ops = operandsOf(args)
	}
	switch name {
	case "rm", "rmdir", "tee", "truncate", "touch", "mkdir", "unlink", "shred", "mkfifo", "mknod", "sponge", "ed":
		fw.paths = ops
	case "cp", "mv", "install", "ln", "rsync", "scp":
		switch {
		case name == "mv":
			fw.paths = ops // the sources go away
		case len(ops) == 1 && len(optValue(args, "-t", "--target-directory")) == 0:
			fw.paths = []string{path.Base(ops[0])} // ln -s /x/y makes ./y
		}
		copyDest(&fw, name, args, ops, isDir)
	case "chmod", "chown", "chgrp":
		if len(ops) > 0 {
			fw.paths = ops[1:] // the first operand is the mode or owner
		}
	case "sed":
		if hasOpt(args, 'i', "--in-place") {
			fw.paths = ops
			if len(ops) > 0 && !hasFlag(args, "-e", "-f", "--expression", "--file") {
				fw.paths = ops[1:] // the script
			}
		}
	case "perl":
		fw.paths = perlInPlace(args)
	case "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, "of="); ok {
				fw.paths = append(fw.paths, v)
			}
		}
	case "gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4":
		if !hasOpt(args, 'c', "--stdout", "--to-stdout") && !hasOpt(args, 't', "--test") {
			for _, o := range ops {
				fw.paths = append(fw.paths, o, strings.TrimSuffix(strings.TrimSuffix(o, path.Ext(o)), "."))
			}
		}
	case "tar", "bsdtar":
		tarWrites(&fw, args)
	case "unzip":
		dirs := optValue(args, "-d")
		if len(dirs) == 0 {
			dirs = []string{"."}
		}
		if !hasOpt(args, 'l') && !hasOpt(args, 'p') && !hasOpt(args, 't') {
			if ex, ok := unzipExtraction(args); ok {
				ex.fallback = dirs
				fw.extracts = append(fw.extracts, ex)
			} else {
				fw.inside = append(fw.inside, dirs...)
			}
		}
	case "7z", "7za", "7zr":
		if len(ops) > 0 && (ops[0] == "x" || ops[0] == "e") {
			dirs := optValue(args, "-o")
			if len(dirs) == 0 {
				dirs = []string{"."}
			}
			fw.inside = append(fw.inside, dirs...)
		} else if len(ops) > 1 && (ops[0] == "a" || ops[0] == "u" || ops[0] == "d") {
			fw.paths = append(fw.paths, ops[1])
		}
	case "cpio":
		if hasOpt(args, 'i', "--extract") {
			fw.inside = append(fw.inside, ".")
		}
	case "patch":
		fw.paths = append(fw.paths, optValue(args, "-o", "--output")...)
		dirs := optValue(args, "-d", "--directory")
		if len(dirs) == 0 {
			dirs = []string{"."}
		}
		if ex, ok := patchExtraction(args); ok {
			// no operands: the words that look like ones are option values
			ex.fallback = dirs
			fw.extracts = append(fw.extracts, ex)
		} else {
			fw.inside = append(fw.inside, dirs...)
			fw.paths = append(fw.paths, ops...)
		}
	case "curl":
		fw.paths = append(fw.paths, optValue(args, "-o", "--output")...)
		fw.paths = append(fw.paths, optValue(args, "-D", "--dump-header")...)
		fw.paths = append(fw.paths, optValue(args, "-c", "--cookie-jar")...)
		fw.paths = append(fw.paths, optValue(args, "", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--hsts", "--alt-svc")...)
		if hasOpt(args, 'O', "--remote-name", "--remote-name-all") {
			// the last segment of each URL's path, in --output-dir
			dir := "."
			if d := optValue(args, "", "--output-dir"); len(d) > 0 {
				dir = d[len(d)-1]
			}
			for _, u := range urlOperands(ops) {
				fw.paths = append(fw.paths, dir+"/"+remoteName(u, ""))
			}
		}
	case "wget":
		out := optValue(args, "-O", "--output-document")
		fw.paths = append(fw.paths, out...)
		fw.paths = append(fw.paths, optValue(args, "-o", "--output-file", "-a", "--append-output")...)
		if len(out) == 0 {
			dir := "."
			if d := optValue(args, "-P", "--directory-prefix"); len(d) > 0 {
				dir = d[len(d)-1]
			}
			if hasOpt(args, 'r', "--recursive") || hasOpt(args, 'm', "--mirror") || hasOpt(args, 'x', "--force-directories") ||
				hasOpt(args, 0, "--content-disposition", "--trust-server-names") || hasOpt(args, 'i', "--input-file") {
				fw.inside = append(fw.inside, dir) // names chosen by the server or the input
			} else {
				for _, u := range urlOperands(ops) {
					fw.paths = append(fw.paths, dir+"/"+remoteName(u, "index.html"))
				}
			}
		}
	case "git":
		gitWrites(&fw, args)
	case "find":
		findWrites(&fw, args)
	case "sort":
		fw.paths = append(fw.paths, optValue(args, "-o", "--output")...)
	case "tree":
		fw.paths = append(fw.paths, optValue(args, "-o")...)
	case "xxd", "uniq":
		if len(ops) > 1 {
			fw.paths = append(fw.paths, ops[1])
		}
	case "yq":
		if hasOpt(args, 'i', "--inplace") && len(ops) > 1 {
			fw.paths = append(fw.paths, ops[1:]...)
		}
	case "split", "csplit":
		fw.inside = append(fw.inside, ".")
	}
	return fw
}

// writers are the programs writesOf has a case for; any other writes only
// through an output option (-o FILE / --output FILE: gcc, go build, pandoc,
// openssl ...).
var writers = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"rm": true, "rmdir": true, "tee": true, "truncate": true, "touch": true, "mkdir": true, "unlink": true,
		"shred": true, "mkfifo": true, "mknod": true, "sponge": true, "ed": true, "cp": true, "mv": true,
		"install": true, "ln": true, "rsync": true, "scp": true, "chmod": true, "chown": true, "chgrp": true,
		"sed": true, "perl": true, "dd": true, "gzip": true, "gunzip": true, "bzip2": true, "bunzip2": true,
		"xz": true, "unxz": true, "zstd": true, "unzstd": true, "lz4": true, "tar": true, "bsdtar": true,
		"unzip": true, "7z": true, "7za": true, "7zr": true, "cpio": true, "patch": true, "curl": true,
		"wget": true, "git": true, "find": true, "sort": true, "tree": true, "xxd": true, "uniq": true,
		"yq": true, "split": true, "csplit": true,
	}
}}

// hasOutputOpt reports whether some word may be an output option.
func hasOutputOpt(args []string) bool {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && (strings.Contains(a, "o") || strings.HasPrefix(a, "--out")) {
			return true
		}
	}
	return false
}

// urlOperands returns the operands that look like URLs (with or without a
// scheme).
func urlOperands(ops []string) []string {
	var out []string
	for _, o := range ops {
		if strings.Contains(o, "://") || strings.Contains(o, ".") {
			out = append(out, o)
		}
	}
	return out
}

// remoteName is the file name a downloader gives a URL: the last segment
// of its path, or def when the path ends in "/" (never a path with a
// folder in it).
func remoteName(u, def string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	i := strings.IndexByte(u, '/')
	if i < 0 {
		return def
	}
	name := path.Base(u[i:])
	if name == "/" || name == "." || name == ".." || strings.HasSuffix(u, "/") {
		if def == "" {
			return "index.html"
		}
		return def
	}
	return name
}

// perlInPlace returns the files perl -i edits: its operands after the
// program (the -e/-E code, or the script file when there is none). In a
// cluster, -I, -M, -m, -x, -C, -d, -D, -l, -0 take the rest as their value
// and -e/-E end it, so -Ilib is not -i.
func perlInPlace(args []string) []string {
	inPlace, code := false, false
	var ops []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			ops = append(ops, a)
			continue
		}
	cluster:
		for k := 1; k < len(a); k++ {
			switch a[k] {
			case 'i':
				inPlace = true
				break cluster // -i.bak: the rest is the backup suffix
			case 'e', 'E':
				code = true
				if k == len(a)-1 {
					i++ // the code is the next word
				}
				break cluster
			case 'I', 'M', 'm', 'x', 'C', 'd', 'D', 'l', '0', 'F':
				break cluster
			}
		}
	}
	if !inPlace {
		return nil
	}
	if !code && len(ops) > 0 {
		ops = ops[1:] // the script file
	}
	return ops
}

// copyDest adds the files a copy, move or link creates: DEST/NAME for each
// source when the destination is a folder (-t DIR, a trailing "/", an
// existing folder), and "anything inside DEST" when it copies a tree.
func copyDest(fw *fileWrites, name string, args, ops []string, isDir func(string) bool) {
	var dest string
	srcs := ops
	if t := optValue(args, "-t", "--target-directory"); len(t) > 0 {
		dest = t[len(t)-1]
	} else if len(ops) >= 2 {
		dest, srcs = ops[len(ops)-1], ops[:len(ops)-1]
	} else {
		return
	}
	if strings.Contains(dest, ":") && (name == "rsync" || name == "scp") {
		return // a remote destination
	}
	folder := strings.HasSuffix(dest, "/") || isDir(dest) || len(optValue(args, "-t", "--target-directory")) > 0
	tree := name == "rsync" || name == "scp" || hasOpt(args, 'r', "--recursive") || hasOpt(args, 'R') || hasOpt(args, 'a', "--archive")
	if name == "mv" {
		for _, src := range srcs {
			tree = tree || isDir(src) // a folder moved brings its whole tree
		}
	}
	if !folder {
		if name != "mv" {
			fw.paths = append(fw.paths, dest)
		}
		if tree {
			fw.inside = append(fw.inside, dest)
		}
		return
	}
	for _, src := range srcs {
		base := path.Base(strings.TrimRight(src, "/"))
		if base != "." && base != "/" && base != ".." {
			fw.paths = append(fw.paths, strings.TrimRight(dest, "/")+"/"+base)
		}
	}
	if tree {
		fw.inside = append(fw.inside, dest)
	}
}

// tarWrites: extraction writes unknown names inside -C DIR (or here);
// creation writes the archive.
func tarWrites(fw *fileWrites, args []string) {
	extract, create := false, false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		extract = strings.ContainsAny(args[0], "x")
		create = strings.ContainsAny(args[0], "cru")
	}
	extract = extract || hasOpt(args, 'x', "--extract", "--get")
	create = create || hasOpt(args, 'c', "--create") || hasOpt(args, 'r', "--append") || hasOpt(args, 'u', "--update")
	if extract {
		dirs := optValue(args, "-C", "--directory")
		if len(dirs) == 0 {
			dirs = []string{"."}
		}
		if ex, ok := tarExtraction(args); ok {
			ex.fallback = dirs
			fw.extracts = append(fw.extracts, ex)
		} else {
			fw.inside = append(fw.inside, dirs...)
		}
	}
	if create {
		fw.paths = append(fw.paths, optValue(args, "-f", "--file")...)
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && strings.Contains(args[0], "f") && len(args) > 1 {
			fw.paths = append(fw.paths, args[1])
		}
	}
}

// gitWrites: --output FILE of diff/log/show/format-patch, the pathspecs of
// checkout/restore/reset and friends, what git clean, apply and am may
// touch, the folder of clone/init/worktree add, and the config file of
// git config.
func gitWrites(fw *fileWrites, args []string) {
	sub, rest := gitSubcommand(args)
	fw.paths = append(fw.paths, optValue(rest, "", "--output")...)
	pathspecs := func() []string {
		for i, a := range rest {
			if a == "--" {
				return rest[i+1:]
			}
		}
		return nil
	}
	switch sub {
	case "format-patch":
		fw.inside = append(fw.inside, optValue(rest, "-o", "--output-directory")...)
	case "checkout", "restore", "reset", "stash":
		ps := pathspecs()
		if sub == "restore" && ps == nil {
			ps = operandsOf(rest)
		}
		fw.inside = append(fw.inside, ps...)
	case "clean":
		ps := operandsOf(rest)
		if len(ps) == 0 {
			ps = []string{"."}
		}
		fw.inside = append(fw.inside, ps...)
		fw.removes = true
	case "apply", "am":
		if !hasOpt(rest, 0, "--check", "--stat", "--numstat", "--summary") || hasOpt(rest, 0, "--apply") {
			// read only when given right after "git": its own options
			// (-C, --work-tree) may move where it applies
			if ex, ok := gitPatchExtraction(sub, rest); ok && len(args) > 0 && args[0] == sub {
				ex.fallback = []string{"."}
				fw.extracts = append(fw.extracts, ex)
			} else {
				fw.inside = append(fw.inside, ".")
			}
		}
	case "clone":
		ops := operandsOf(rest)
		if len(ops) >= 2 {
			fw.inside = append(fw.inside, ops[1])
		} else if len(ops) == 1 {
			fw.inside = append(fw.inside, strings.TrimSuffix(path.Base(ops[0]), ".git"))
		}
	case "init":
		ops := operandsOf(rest)
		if len(ops) == 0 {
			ops = []string{"."}
		}
		fw.inside = append(fw.inside, ops...)
	case "worktree":
		ops := operandsOf(rest)
		if len(ops) >= 2 && ops[0] == "add" {
			fw.inside = append(fw.inside, ops[1])
		}
	case "config":
		if !hasOpt(rest, 'l', "--list", "--get", "--get-all", "--get-regexp", "--show-origin") && len(operandsOf(rest)) >= 2 {
			switch {
			case hasOpt(rest, 0, "--global"):
				fw.paths = append(fw.paths, "~/.gitconfig")
			case hasOpt(rest, 0, "--system"):
				fw.paths = append(fw.paths, "/etc/gitconfig")
			default:
				fw.paths = append(fw.paths, ".git/config")
			}
			fw.paths = append(fw.paths, optValue(rest, "-f", "--file")...)
		}
	}
}

// findWrites: -delete removes what matches below the search roots;
// -fprint FILE and friends write FILE.
func findWrites(fw *fileWrites, args []string) {
	roots, expr, follow := findParts(args)
	for i, a := range expr {
		switch a {
		case "-delete":
			if names, ok := findDeleteNames(expr, i); ok && !follow {
				for _, r := range roots {
					fw.named = append(fw.named, namedInside{dir: r, names: names})
				}
				continue
			}
			fw.inside = append(fw.inside, roots...)
			fw.removes = true
		case "-fprint", "-fprint0", "-fls", "-fprintf":
			if i+1 < len(expr) {
				fw.paths = append(fw.paths, expr[i+1])
			}
		}
	}
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || hasOptEq(a, f) {
				return true
			}
		}
	}
	return false
}
