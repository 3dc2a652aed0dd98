package preview

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"

	"vibing/internal/command"
	"vibing/internal/safefile"
)

// fileChange previews Edit, MultiEdit, Write and NotebookEdit against the
// file as it is now.
func fileChange(c *command.Call) Preview {
	p := Preview{Kind: KindDiff}
	if c.Path == nil {
		p.Problem = "the call names no file"
		if c.Err != nil {
			p.Problem = c.Err.Error()
		}
		return p
	}
	p.Path = relPath(c.Path.Abs, c.Env.Cwd)
	if c.Path.Real != "" && c.Path.Real != c.Path.Abs {
		p.Target = c.Path.Real
		p.Notes = append(p.Notes, "the path goes through a symlink to "+c.Path.Real)
	}
	cur, exists, err := readBounded(c.Path.Abs)
	if err != nil {
		p.Problem = err.Error()
		return p
	}
	if exists && isBinary(cur) {
		p.Kind, p.Bytes = KindBinary, int64(len(cur))
		p.Notes = append(p.Notes, fmt.Sprintf("the file is binary (%d bytes); its content is not shown", len(cur)))
		if c.Tool == "Write" {
			if s, ok := c.Input["content"].(string); ok && !isBinary(s) {
				p.Notes = append(p.Notes, fmt.Sprintf("it would be replaced by %d lines of text", countLines(s)))
			}
		}
		return p
	}
	crlf := strings.Contains(cur, "\r\n")
	if crlf {
		cur = strings.ReplaceAll(cur, "\r\n", "\n")
		p.Notes = append(p.Notes, "the file has CRLF line endings (shown here as LF; they are kept)")
	}
	var next string
	switch c.Tool {
	case "Write":
		content, ok := c.Input["content"].(string)
		if !ok {
			p.Problem = "the call has no content to write"
			return p
		}
		if !exists {
			return newFile(p, content)
		}
		if isBinary(content) {
			p.Kind, p.Bytes = KindBinary, int64(len(content))
			p.Notes = append(p.Notes, fmt.Sprintf("binary content of %d bytes would replace the file; not shown", len(content)))
			return p
		}
		next = strings.ReplaceAll(content, "\r\n", "\n")
	case "Edit", "MultiEdit":
		edits, err := editsOf(c.Tool, c.Input)
		if err != nil {
			p.Problem = err.Error()
			return p
		}
		if !exists {
			if len(edits) == 1 && edits[0].old == "" {
				return newFile(p, edits[0].new) // Edit with an empty old_string creates the file
			}
			p.Problem = "the file does not exist, so the edit will fail"
			return p
		}
		next, err = applyEdits(cur, edits)
		if err != nil {
			p.Problem = err.Error()
			return p
		}
		if len(next) <= MaxProposed {
			p.Proposed = next
		}
	case "NotebookEdit":
		var err error
		cur, next, err = notebookCell(cur, exists, c.Input)
		if err != nil {
			p.Problem = err.Error()
			return p
		}
		p.Path += " (cell " + cellName(c.Input) + ")"
	}
	setDiff(&p, cur, next)
	return p
}

// readBounded reads a file as it is now; a missing file is not an error.
// The path is the agent's to choose: a FIFO or a device is never opened
// in a way that blocks, nor read.
func readBounded(abs string) (string, bool, error) {
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return "", false, errors.New("the path is a folder, not a file")
	}
	f, err := safefile.Open(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", false, fmt.Errorf("the file cannot be read (%v), so the change cannot be shown", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return "", false, fmt.Errorf("the file cannot be read (%v), so the change cannot be shown", err)
	}
	if len(b) > MaxFileBytes {
		return "", true, fmt.Errorf("the file is larger than %d MiB, too large to preview; review it outside the editor", MaxFileBytes>>20)
	}
	return string(b), true, nil
}

// isBinary: a NUL byte or bytes that are not UTF-8 in the first 8 KiB.
func isBinary(s string) bool {
	head := s
	if len(head) > 8192 {
		head = head[:8192]
		for i := 0; i < 3 && !utf8.ValidString(head) && len(head) > 0; i++ {
			head = head[:len(head)-1] // a rune cut at the boundary
		}
	}
	return strings.IndexByte(head, 0) >= 0 || !utf8.ValidString(head)
}

func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// newFile previews a file the call creates: its size and first lines.
func newFile(p Preview, content string) Preview {
	p.Kind, p.Bytes = KindNewFile, int64(len(content))
	if isBinary(content) {
		p.Kind = KindBinary
		p.Notes = append(p.Notes, fmt.Sprintf("a new binary file of %d bytes; its content is not shown", len(content)))
		return p
	}
	p.Lines = countLines(content)
	lines := strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n")
	if len(lines) > HeadLines {
		lines, p.Truncated = lines[:HeadLines], true
	}
	for i, l := range lines {
		l = strings.TrimRight(l, "\r\n")
		if utf8.RuneCountInString(l) > MaxHeadLine {
			l = string([]rune(l)[:MaxHeadLine]) + "…"
			p.Truncated = true
		}
		lines[i] = l
	}
	p.Head = strings.Join(lines, "\n")
	return p
}

// setDiff fills the unified diff of cur → next and its counts.
func setDiff(p *Preview, cur, next string) {
	if cur == next {
		p.Notes = append(p.Notes, "the call leaves the file as it is")
		return
	}
	name := strings.TrimPrefix(p.Path, "/")
	u, err := udiff.ToUnifiedDiff("a/"+name, "b/"+name, cur, udiff.Lines(cur, next), udiff.DefaultContextLines)
	if err != nil {
		p.Problem = "the diff could not be computed: " + err.Error()
		return
	}
	for _, h := range u.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				p.Added++
			case udiff.Delete:
				p.Removed++
			}
		}
	}
	text := u.String()
	if n := strings.Count(text, "\n"); n > MaxDiffLines {
		cut := 0
		for i := 0; i < MaxDiffLines; i++ {
			cut += strings.IndexByte(text[cut:], '\n') + 1
		}
		text = text[:cut]
		p.Truncated = true
		p.Notes = append(p.Notes, fmt.Sprintf("the diff is cut after %d of its %d lines", MaxDiffLines, n))
	}
	p.Unified = text
}

type edit struct {
	old, new   string
	replaceAll bool
}

func editsOf(tool string, input map[string]any) ([]edit, error) {
	one := func(m map[string]any) (edit, error) {
		o, ok1 := m["old_string"].(string)
		n, ok2 := m["new_string"].(string)
		if !ok1 || !ok2 {
			return edit{}, errors.New("the edit has no old_string or new_string")
		}
		ra, _ := m["replace_all"].(bool)
		return edit{old: o, new: n, replaceAll: ra}, nil
	}
	if tool == "Edit" {
		e, err := one(input)
		return []edit{e}, err
	}
	list, ok := input["edits"].([]any)
	if !ok || len(list) == 0 {
		return nil, errors.New("the MultiEdit call has no edits")
	}
	var out []edit
	for i, x := range list {
		m, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("edit %d of the MultiEdit is not an object", i+1)
		}
		e, err := one(m)
		if err != nil {
			return nil, fmt.Errorf("edit %d of the MultiEdit: %v", i+1, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// applyEdits applies edits in order, as the CLI does, on LF text: an
// old_string that is not there, or is there more than once without
// replace_all, is said plainly.
func applyEdits(cur string, edits []edit) (string, error) {
	for i, e := range edits {
		which := "old_string"
		if len(edits) > 1 {
			which = fmt.Sprintf("old_string of edit %d", i+1)
		}
		o, n := strings.ReplaceAll(e.old, "\r\n", "\n"), strings.ReplaceAll(e.new, "\r\n", "\n")
		if o == "" {
			return "", fmt.Errorf("the %s is empty, but the file exists: the edit will fail", which)
		}
		if o == n {
			return "", fmt.Errorf("the %s equals its new_string: the edit changes nothing and will fail", which)
		}
		count := strings.Count(cur, o)
		switch {
		case count == 0:
			return "", fmt.Errorf("the %s is not in the file (%s), so the edit will fail", which, quote(o))
		case count > 1 && !e.replaceAll:
			return "", fmt.Errorf("the %s occurs %d times in the file and replace_all is not set, so the edit will fail", which, count)
		case e.replaceAll:
			cur = strings.ReplaceAll(cur, o, n)
		default:
			cur = strings.Replace(cur, o, n, 1)
		}
	}
	return cur, nil
}

func quote(s string) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
