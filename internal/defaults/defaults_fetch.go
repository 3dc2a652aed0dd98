package defaults

import (
	"path"
	"strings"

	"vibing/internal/command"
)

// downloader is what the default rules know of a program that fetches a
// URL: the letter of its short option naming the file written (0: none),
// and whether it saves under the URL's own name when given no such option.
type downloader struct {
	out   byte
	byURL bool
}

// downloaderOf reports the downloaders (a switch: the rules ask it of every
// command).
func downloaderOf(name string) (downloader, bool) {
	switch name {
	case "curl", "http", "https", "xh", "xhs":
		return downloader{'o', false}, true
	case "wget":
		return downloader{'O', true}, true
	case "fetch", "aria2c":
		return downloader{'o', true}, true
	}
	return downloader{}, false
}

func isDownload(cmd *command.Command) bool {
	_, ok := downloadWords(cmd)
	return ok
}

func downloadWords(cmd *command.Command) ([]string, bool) {
	for _, words := range candidates(cmd) {
		if len(words) > 0 {
			if _, ok := downloaderOf(path.Base(words[0])); ok {
				return words, true
			}
		}
	}
	return nil, false
}

func isShellSink(cmd *command.Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		n := path.Base(words[0])
		if runsScripts(n) || isPrivilegedName(n) {
			return true
		}
	}
	return false
}

// feedsShell reports whether command i's output reaches a shell: later in its
// pipeline, or as the script of the command it stands in (sh -c "$(curl ..)",
// bash <(curl ..), eval "$(wget ..)").
func feedsShell(c *command.Call, i int) bool {
	d := &c.Commands[i]
	for j := range c.Commands {
		e := &c.Commands[j]
		if j != i && e.Pipeline == d.Pipeline && e.Index > d.Index && isShellSink(e) {
			return true
		}
	}
	for p, n := d.Parent(), 0; p >= 0 && p < len(c.Commands) && n < 16; p, n = c.Commands[p].Parent(), n+1 {
		if isShellSink(&c.Commands[p]) {
			return true
		}
	}
	return false
}

// anyFile stands for a downloaded file whose name the line does not show
// (curl -J, wget --content-disposition).
const anyFile = "\x00"

// runsDownload reports whether a file download i writes is run elsewhere on
// the line: as a command (./x.sh), by a shell or interpreter (sh x.sh,
// python3 x.py, source x, bash < x). Files are compared by their last
// name, and anywhere on the line, as loops and functions may run a command
// after one written later.
func runsDownload(c *command.Call, i int) bool {
	files := downloadedFiles(c, i)
	if len(files) == 0 {
		return false
	}
	for j := range c.Commands {
		if j != i && runsFile(&c.Commands[j], files) {
			return true
		}
	}
	return false
}

// downloadedFiles lists the names of the files download i writes: its
// output option, the URL's own name where the tool saves under it, and the
// files its output is redirected or tee'd to in its pipeline.
func downloadedFiles(c *command.Call, i int) []string {
	d := &c.Commands[i]
	words, _ := downloadWords(d)
	name := path.Base(words[0])
	tool, _ := downloaderOf(name)
	var files, urls []string
	byURL := tool.byURL
	for k := 1; k < len(words); k++ {
		a := words[k]
		switch {
		case a == "--output" || a == "--output-document" || a == "--out":
			if k+1 < len(words) {
				files = append(files, words[k+1])
				k++
			}
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-document=") || strings.HasPrefix(a, "--out="):
			_, v, _ := strings.Cut(a, "=")
			files = append(files, v)
		case a == "--remote-name" || a == "--remote-name-all" || a == "--download":
			byURL = true
		case a == "--remote-header-name" || a == "--content-disposition" || a == "--trust-server-names":
			files = append(files, anyFile)
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			if j := strings.IndexByte(a, tool.out); tool.out != 0 && j > 0 {
				if j+1 < len(a) {
					files = append(files, a[j+1:])
				} else if k+1 < len(words) {
					files = append(files, words[k+1])
					k++
				}
			}
			switch name {
			case "curl":
				byURL = byURL || strings.ContainsRune(a, 'O')
				if strings.ContainsRune(a, 'J') {
					files = append(files, anyFile)
				}
			case "http", "https", "xh", "xhs":
				if strings.ContainsRune(a, 'd') {
					files = append(files, anyFile) // --download: a name from the URL or the server
				}
			}
		case strings.Contains(a, "://"):
			urls = append(urls, a)
		}
	}
	if byURL {
		for _, u := range urls {
			u, _, _ = strings.Cut(u, "?")
			u, _, _ = strings.Cut(u, "#")
			files = append(files, path.Base(u))
		}
	}
	for j := range c.Commands {
		e := &c.Commands[j]
		if e.Pipeline != d.Pipeline || e.Index < d.Index {
			continue
		}
		files = append(files, e.More().Outs...)
		if e.Index > d.Index && len(e.Args) > 0 && path.Base(e.Args[0]) == "tee" {
			_, ops := command.SplitFlags(e.Args[1:])
			files = append(files, ops...)
		}
	}
	out := files[:0]
	for _, f := range files {
		if f != "" && f != "-" && f != "/dev/null" && f != "/dev/stdout" && f != "/dev/stderr" {
			out = append(out, f)
		}
	}
	return out
}

// runsFile reports whether a command runs one of files.
func runsFile(cmd *command.Command, files []string) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		if sameFile(words[0], files) && (strings.Contains(words[0], "/") || !runsScripts(path.Base(words[0]))) {
			return true
		}
		if !runsScripts(path.Base(words[0])) {
			continue
		}
		for _, a := range words[1:] {
			if !strings.HasPrefix(a, "-") && sameFile(a, files) {
				return true
			}
		}
		for _, in := range cmd.More().Ins {
			if sameFile(in, files) {
				return true
			}
		}
	}
	return false
}

func sameFile(w string, files []string) bool {
	name := path.Base(w)
	for _, f := range files {
		if f == anyFile {
			if strings.Contains(w, "/") || strings.Contains(name, ".") {
				return true
			}
			continue
		}
		if path.Base(f) == name {
			return true
		}
	}
	return false
}
