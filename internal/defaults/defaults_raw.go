package defaults

import (
	"path"
	"strings"

	"vibing/internal/command"
)

// The fallback for a line the parser rejects (or could not walk to the
// end): bash may still run it — `((echo a); echo b); rm -rf /` and
// `!; sudo rm -rf /` are valid bash the parser refuses — so the default
// rules must not fail open on it. The raw text is cut into pieces at every
// character that may end a command in some reading of the line (; & | ( )
// ! { } ` $( newlines) and the pieces into words at blanks, commas and
// redirections, with quotes and backslashes dropped; ${..} stays one word.
// Quotes are not honoured, so a script given to sh -c is read as well.
// Then every word that names a command the rules know (rm, git, chmod,
// dd, mkfs ...) is tried as the start of a command running to the end of
// its piece; any privilege program anywhere is privilege escalation; and a
// downloader together with a shell, an interpreter or a ./file anywhere is
// a download run as a script. This errs towards refusing: it only runs on
// lines that are never allowed by a pattern anyway.

// maxRawBytes and maxRawWords bound the fallback: a longer line is refused
// as too large to check; the words looked at from the command starts are
// counted against maxRawWords.
const (
	maxRawBytes = 4 << 20
	maxRawWords = 1 << 20
)

func (k *checker) rawDeny() (string, bool) {
	line := k.c.Command
	if len(line) > maxRawBytes {
		return DenyUnchecked, true
	}
	pieces := rawPieces(line)
	at := place{dirs: k.rawDirs(pieces), loose: true}
	budget := maxRawWords
	download, runner := false, false
	for _, p := range pieces {
		for i, w := range p {
			n := path.Base(w)
			if ruleCommand(n) {
				if budget -= len(p) - i; budget < 0 {
					return DenyUnchecked, true
				}
				if name, ok := k.denyWords(at, p[i:]); ok {
					return name, true
				}
				if k.over {
					return DenyUnchecked, true
				}
			}
			_, isDownloader := downloaderOf(n)
			download = download || isDownloader
			runner = runner || runsScripts(n) || strings.HasPrefix(w, "./")
		}
	}
	if download && runner {
		return DenyDownloadSh, true
	}
	for _, p := range pieces {
		for _, w := range p {
			if isPrivilegedName(path.Base(w)) {
				return DenySudo, true
			}
		}
	}
	return "", false
}

// rawPieces cuts a line into pieces of words (see above).
func rawPieces(line string) [][]string {
	var pieces [][]string
	var words []string
	var cur strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	endPiece := func() {
		endWord()
		if len(words) > 0 {
			pieces = append(pieces, words)
			words = nil
		}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch ch {
		case ';', '&', '|', '(', ')', '!', '\n', '{', '}', '`':
			endPiece()
		case ' ', '\t', '\r', ',', '<', '>':
			endWord()
		case '\'', '"':
		case '\\':
			if i+1 < len(line) {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
					inWord = true
				}
			}
		case '$':
			if i+1 < len(line) && line[i+1] == '{' {
				j := strings.IndexByte(line[i:], '}')
				if j < 0 {
					j = len(line) - i - 1
				}
				cur.WriteString(line[i : i+j+1])
				inWord = true
				i += j
				continue
			}
			if i+1 < len(line) && line[i+1] == '(' {
				endPiece()
				i++
				continue
			}
			cur.WriteByte(ch)
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	endPiece()
	return pieces
}

// rawDirs are the folders the pieces may run in: the working folder and
// every folder a cd or pushd names (a bare cd is the home folder).
func (k *checker) rawDirs(pieces [][]string) []string {
	var dirs []string
	if k.b.cwd != "" {
		dirs = append(dirs, k.b.cwd)
	}
	for _, p := range pieces {
		for i, w := range p {
			if w != "cd" && w != "pushd" {
				continue
			}
			t := ""
			for _, a := range p[i+1:] {
				if !strings.HasPrefix(a, "-") || a == "-" {
					t = a
					break
				}
			}
			if len(dirs) >= command.MaxSeen {
				return command.AddDirs(dirs, []string{"/"})
			}
			switch full, _, _ := k.expandVars(t); {
			case t == "" && k.b.home != "":
				dirs = command.AddDirs(dirs, []string{k.b.home})
			case t == "" || strings.Contains(full, unknownPart):
			default:
				full = k.tilde(full)
				if !strings.HasPrefix(full, "/") && k.b.cwd != "" {
					full = k.b.cwd + "/" + full
				}
				if strings.HasPrefix(full, "/") && !strings.Contains(full, unknownPart) {
					dirs = command.AddDirs(dirs, []string{cleanAbs(full)})
				}
			}
		}
	}
	return dirs
}
