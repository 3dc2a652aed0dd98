package command

import (
	"strconv"
	"strings"
)

// Archives unpacked and patches applied (tar x, unzip, patch, git apply,
// git am) write names the line does not spell out. When the options are
// all understood and the archive or patch file can be read (archive.go,
// internal/patch), the walk records the files it names; otherwise, as for
// any write of unknown names, "something inside the folder" (Path.inside).
// What was read is trusted only if nothing else on the line may change
// it first (settleExtracts).

type extractKind uint8

const (
	ExtractTar extractKind = iota + 1
	ExtractZip
	extractPatch    // GNU patch
	extractGitApply // git apply
	extractGitAm    // git am
)

// extraction is one archive unpacked or patch applied, as its options say.
type Extraction struct {
	Kind     extractKind
	files    []string // the archive or patch files as written; "-" is standard input
	Dir      string   // the folder names are written in, as written ("." = where the command runs)
	Strip    int      // tar --strip-components; patch and git -p
	stripSet bool     // patch: -p was given
	Junk     bool     // unzip -j: names lose their folders
	Lower    bool     // unzip -L: names may be lower-cased
	prefix   string   // git --directory
	batch    bool     // patch -f/-t: it never asks which file to patch
	suffixes []string // files made next to each one (backups, rejects)
	extra    []string // other files it writes (patch -r FILE)
	fallback []string // the folders it writes unknown names in when the file cannot be read
}

// tarFlags are the value-less short options of tar (GNU tar and bsdtar
// agree on them) that change neither which names are written nor where;
// tarValued those that take a value.
const (
	tarFlags  = "xvzjJakmopPUOB"
	tarValued = "fCTXb"
)

// tarLong are the long options of tar understood here: true when they
// take a value.
var tarLong = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"extract": false, "get": false, "file": true, "directory": true, "strip-components": true, "gzip": false,
		"gunzip": false, "ungzip": false, "bzip2": false, "xz": false, "auto-compress": false, "verbose": false,
		"keep-old-files": false, "skip-old-files": false, "keep-newer-files": false, "overwrite": false,
		"no-overwrite-dir": false, "touch": false, "no-same-owner": false, "same-owner": false,
		"no-same-permissions": false, "same-permissions": false, "preserve-permissions": false, "numeric-owner": false,
		"exclude": true, "exclude-from": true, "files-from": true, "wildcards": false, "no-wildcards": false,
		"anchored": false, "no-anchored": false, "ignore-case": false, "no-ignore-case": false, "warning": true,
		"totals": false, "absolute-names": false, "unlink-first": false, "delay-directory-restore": false,
		"exclude-vcs": false, "blocking-factor": true, "record-size": true,
	}
}}

// tarExtraction reads tar's options for an extraction; ok is false when
// it is not one, or an option is not understood.
func tarExtraction(args []string) (Extraction, bool) {
	ex := Extraction{Kind: ExtractTar, Dir: "."}
	var files, dirs []string
	extract := false
	take := func(ch byte, v string) {
		switch ch {
		case 'f':
			files = append(files, v)
		case 'C':
			dirs = append(dirs, v)
		}
	}
	i := 0
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		// the old form: tar xzfC a.tgz dir takes the values in order
		i = 1
		for k := 0; k < len(args[0]); k++ {
			ch := args[0][k]
			switch {
			case strings.IndexByte(tarFlags, ch) >= 0:
			case strings.IndexByte(tarValued, ch) >= 0 && i < len(args):
				take(ch, args[i])
				i++
			default:
				return ex, false
			}
			extract = extract || ch == 'x'
		}
	}
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args) // member names follow
		case strings.HasPrefix(a, "--"):
			name, val, last, ok := longOption(args, i, tarLong.Get())
			if !ok {
				return ex, false
			}
			i = last
			switch name {
			case "extract", "get":
				extract = true
			case "file":
				files = append(files, val)
			case "directory":
				dirs = append(dirs, val)
			case "strip-components":
				n, err := strconv.Atoi(val)
				if err != nil || n < 0 {
					return ex, false
				}
				ex.Strip = n
			}
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				ch := a[k]
				switch {
				case strings.IndexByte(tarFlags, ch) >= 0:
					extract = extract || ch == 'x'
				case strings.IndexByte(tarValued, ch) >= 0:
					v := a[k+1:]
					if v == "" {
						if i+1 >= len(args) {
							return ex, false
						}
						i++
						v = args[i]
					}
					take(ch, v)
					k = len(a)
				default:
					return ex, false
				}
			}
		}
		// other words name the members to unpack: a part of the archive
	}
	if !extract || len(files) != 1 || len(dirs) > 1 {
		return ex, false
	}
	ex.files = files
	if len(dirs) == 1 {
		ex.Dir = dirs[0]
	}
	return ex, true
}

// unzipFlags are unzip's value-less options understood here (the listing
// ones, l t p c v z Z, are not: the caller handles them).
const unzipFlags = "onqufabjLCDKMNTUVWXsx:^"

// unzipExtraction reads unzip's options.
func unzipExtraction(args []string) (Extraction, bool) {
	ex := Extraction{Kind: ExtractZip, Dir: "."}
	var zipfile string
	var dirs []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) > 1 && a[0] == '-' {
			if a[1] == '-' {
				return ex, false // unzip's --option negations
			}
			for k := 1; k < len(a); k++ {
				ch := a[k]
				switch {
				case ch == 'd' || ch == 'P':
					v := a[k+1:]
					if v == "" {
						if i+1 >= len(args) {
							return ex, false
						}
						i++
						v = args[i]
					}
					if ch == 'd' {
						dirs = append(dirs, v)
					}
					k = len(a)
				case strings.IndexByte(unzipFlags, ch) >= 0:
					ex.Junk = ex.Junk || ch == 'j'
					ex.Lower = ex.Lower || ch == 'L'
				default:
					return ex, false
				}
			}
			continue
		}
		if zipfile == "" {
			zipfile = a // later words name the members to unpack or leave out
		}
	}
	if zipfile == "" || len(dirs) > 1 {
		return ex, false
	}
	ex.files = []string{zipfile}
	if len(dirs) == 1 {
		ex.Dir = dirs[0]
	}
	return ex, true
}

// patchFlags are GNU patch's value-less options understood here,
// patchValued those that take a value; patchLong the long ones (true:
// they take a value).
const (
	patchFlags  = "bcEflnNRstTuZ"
	patchValued = "pidorzFDgx"
)

var patchLong = Table[map[string]bool]{Make: func() map[string]bool {
	return map[string]bool{
		"strip": true, "input": true, "directory": true, "output": true, "reject-file": true, "suffix": true,
		"fuzz": true, "ifdef": true, "get": true, "debug": true, "reject-format": true, "read-only": true,
		"quoting-style": true, "forward": false, "reverse": false, "silent": false, "quiet": false, "force": false,
		"batch": false, "remove-empty-files": false, "backup": false, "no-backup-if-mismatch": false,
		"backup-if-mismatch": false, "ignore-whitespace": false, "unified": false, "context": false, "normal": false,
		"dry-run": false, "verbose": false, "binary": false, "posix": false, "set-time": false, "set-utc": false,
		"follow-symlinks": false,
	}
}}

// patchExtraction reads GNU patch's options. A patch given an original
// file to patch (patch x.c fix.diff) is not read: it writes that file.
func patchExtraction(args []string) (Extraction, bool) {
	ex := Extraction{Kind: extractPatch, Dir: ".", suffixes: []string{".orig", ".rej"}}
	var inputs, dirs []string
	value := func(ch byte, v string) bool {
		switch ch {
		case 'p':
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return false
			}
			ex.Strip, ex.stripSet = n, true
		case 'i':
			inputs = append(inputs, v)
		case 'd':
			dirs = append(dirs, v)
		case 'r':
			if v != "-" {
				ex.extra = append(ex.extra, v)
			}
		case 'z':
			ex.suffixes = append(ex.suffixes, v)
		}
		return true
	}
	long := map[string]byte{"strip": 'p', "input": 'i', "directory": 'd', "reject-file": 'r', "suffix": 'z'}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--" || a == "-" || len(a) < 2 || a[0] != '-':
			return ex, false // an original file (or the patch) named as an operand
		case strings.HasPrefix(a, "--"):
			name, val, last, ok := longOption(args, i, patchLong.Get())
			if !ok {
				return ex, false
			}
			i = last
			ex.batch = ex.batch || name == "force" || name == "batch"
			if ch, ok := long[name]; ok && !value(ch, val) {
				return ex, false
			}
		default:
			for k := 1; k < len(a); k++ {
				ch := a[k]
				switch {
				case strings.IndexByte(patchFlags, ch) >= 0:
					ex.batch = ex.batch || ch == 'f' || ch == 't'
				case strings.IndexByte(patchValued, ch) >= 0:
					v := a[k+1:]
					if v == "" {
						if i+1 >= len(args) {
							return ex, false
						}
						i++
						v = args[i]
					}
					if !value(ch, v) {
						return ex, false
					}
					k = len(a)
				default:
					return ex, false
				}
			}
		}
	}
	if len(inputs) > 1 || len(dirs) > 1 {
		return ex, false
	}
	ex.files = []string{"-"}
	if len(inputs) == 1 {
		ex.files = inputs
	}
	if len(dirs) == 1 {
		ex.Dir = dirs[0]
	}
	return ex, true
}

// gitApplyLong and gitAmLong are the long options of git apply and git am
// understood here (true: they take a value).
var (
	gitApplyLong = Table[map[string]bool]{Make: func() map[string]bool {
		return map[string]bool{
			"index": false, "cached": false, "intent-to-add": false, "3way": false, "reverse": false, "reject": false,
			"no-add": false, "allow-binary-replacement": false, "binary": false, "recount": false, "unidiff-zero": false,
			"inaccurate-eof": false, "verbose": false, "quiet": false, "allow-empty": false, "unsafe-paths": false,
			"ignore-space-change": false, "ignore-whitespace": false, "apply": false, "stat": false, "numstat": false,
			"summary": false, "check": false, "directory": true, "include": true, "exclude": true, "whitespace": true,
		}
	}}
	gitAmLong = Table[map[string]bool]{Make: func() map[string]bool {
		return map[string]bool{
			"signoff": false, "keep": false, "keep-non-patch": false, "keep-cr": false, "no-keep-cr": false,
			"scissors": false, "no-scissors": false, "quiet": false, "utf8": false, "no-utf8": false, "message-id": false,
			"no-message-id": false, "3way": false, "no-3way": false, "ignore-space-change": false,
			"ignore-whitespace": false, "reject": false, "committer-date-is-author-date": false, "ignore-date": false,
			"directory": true, "include": true, "exclude": true, "whitespace": true, "patch-format": true,
		}
	}}
)

// gitPatchExtraction reads the options of git apply or git am (given right
// after "git": git's own options may move it elsewhere).
func gitPatchExtraction(sub string, rest []string) (Extraction, bool) {
	ex := Extraction{Kind: extractGitApply, Dir: ".", Strip: 1, stripSet: true}
	long, flags := gitApplyLong.Get(), "Rvq3Nz"
	if sub == "am" {
		ex.Kind, long, flags = extractGitAm, gitAmLong.Get(), "skcqum3"
	}
	var files []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			files = append(files, rest[i+1:]...)
			i = len(rest)
		case a == "-" || len(a) < 2 || a[0] != '-':
			files = append(files, a)
		case strings.HasPrefix(a, "--"):
			name, val, last, ok := longOption(rest, i, long)
			if !ok {
				return ex, false
			}
			i = last
			switch name {
			case "directory":
				ex.prefix = strings.TrimSuffix(val, "/")
			case "reject":
				ex.suffixes = []string{".rej"}
			case "patch-format":
				if val != "mbox" {
					return ex, false
				}
			}
		case a[1] == 'p' || a[1] == 'C':
			v := a[2:]
			if v == "" {
				if i+1 >= len(rest) {
					return ex, false
				}
				i++
				v = rest[i]
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return ex, false
			}
			if a[1] == 'p' {
				ex.Strip = n
			}
		default:
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(flags, a[k]) < 0 {
					return ex, false
				}
			}
		}
	}
	if len(files) == 0 {
		files = []string{"-"}
	}
	ex.files = files
	return ex, true
}

// extractEnv are the variables that change what an extraction writes or
// where (TAR_OPTIONS=--transform=..., UNZIP=-d..., GIT_WORK_TREE=...): when
// the line speaks of one (by this part of its name) or the engine's own
// environment sets one, the file is not read.
var extractEnv = map[extractKind]struct {
	line []string
	env  []string
}{
	ExtractTar:   {[]string{"TAR_"}, []string{"TAR_OPTIONS"}},
	ExtractZip:   {[]string{"UNZIP"}, []string{"UNZIP", "UNZIPOPT"}},
	extractPatch: {[]string{"BACKUP_SUFFIX", "VERSION_CONTROL", "POSIXLY_CORRECT", "PATCH_GET"}, []string{"SIMPLE_BACKUP_SUFFIX", "VERSION_CONTROL", "PATCH_VERSION_CONTROL", "POSIXLY_CORRECT"}},
	extractGitApply: {[]string{"GIT_"}, []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES",
		"GIT_DISCOVERY_ACROSS_FILESYSTEM", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT",
		"GIT_CONFIG_PARAMETERS", "GIT_COMMON_DIR"}},
}

// plainWord reports whether a word names one file the walk can read: not
// computed at run time, not a pattern the shell expands, not find's {}.
func plainWord(w string) bool {
	return w != "" && !strings.ContainsAny(w, "$`*?[{}\x00")
}

// longOption reads the long option args[i] ("--name" or "--name=value")
// against table (name -> whether it takes a value). It returns the name,
// the value, and the index of the last word it used; ok is false for an
// option the table does not know, a value where none is taken, or a value
// that is missing.
func longOption(args []string, i int, table map[string]bool) (name, val string, last int, ok bool) {
	name, val, has := strings.Cut(args[i][2:], "=")
	valued, known := table[name]
	switch {
	case !known || (has && !valued):
		return "", "", i, false
	case valued && !has:
		if i+1 >= len(args) {
			return "", "", i, false
		}
		i++
		val = args[i]
	}
	return name, val, i, true
}
