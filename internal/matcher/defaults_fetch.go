package matcher

import "path"

// downloaders fetch a URL: the letter of their short option naming the
// file written (0: none), and whether they save under the URL's own name
// when given no such option.
var downloaders = map[string]struct {
	out   byte
	byURL bool
}{
	"curl": {'o', false}, "wget": {'O', true}, "fetch": {'o', true}, "aria2c": {'o', true},
	"http": {'o', false}, "https": {'o', false}, "xh": {'o', false}, "xhs": {'o', false},
}

func isDownload(cmd *Command) bool {
	_, ok := downloadWords(cmd)
	return ok
}

func downloadWords(cmd *Command) ([]string, bool) {
	for _, words := range candidates(cmd) {
		if len(words) > 0 {
			if _, ok := downloaders[path.Base(words[0])]; ok {
				return words, true
			}
		}
	}
	return nil, false
}

func isShellSink(cmd *Command) bool {
	for _, words := range candidates(cmd) {
		if len(words) == 0 {
			continue
		}
		n := path.Base(words[0])
		if runsScripts(n) || privileged[n] {
			return true
		}
	}
	return false
}

// feedsShell reports whether command i's output reaches a shell: later in its
// pipeline, or as the script of the command it stands in (sh -c "$(curl ..)",
// bash <(curl ..), eval "$(wget ..)").
func feedsShell(c *Call, i int) bool {
	d := &c.Commands[i]
	for j := range c.Commands {
		e := &c.Commands[j]
		if j != i && e.Pipeline == d.Pipeline && e.Index > d.Index && isShellSink(e) {
			return true
		}
	}
	for p, n := d.parent, 0; p >= 0 && p < len(c.Commands) && n < 16; p, n = c.Commands[p].parent, n+1 {
		if isShellSink(&c.Commands[p]) {
			return true
		}
	}
	return false
}
