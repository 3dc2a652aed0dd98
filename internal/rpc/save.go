package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"vibing/internal/frontmatter"
)

// MaxChat bounds the text of a chat the editor saves through the host.
const MaxChat = 64 << 20

// ConflictMessage is why a save stopped: the body changed on disk.
const ConflictMessage = "the chat changed on disk since vibing last read or wrote it (another editor, or vibing-agent run --write-back); " +
	"nothing was saved: reload it with :edit! (drops your unsaved edits) or keep yours with :write!"

// SaveResult is the answer to a save.
type SaveResult struct {
	OK bool
	// Merged: the file's frontmatter had changed on disk (a rule another
	// process added) and was kept; Frontmatter is it, for the buffer.
	Merged      bool
	Frontmatter []string
	Message     string // why nothing was saved (OK false)
}

// SaveChat writes lines (the editor's buffer) to the chat at path under the
// chat's lock (frontmatter.UpdateFile), comparing what is on disk with base,
// the file as the editor last read or wrote it, under that lock:
//   - unchanged (or base nil): lines are written;
//   - only the frontmatter changed and the buffer's frontmatter is base's:
//     the disk's frontmatter and the buffer's body are written (Merged);
//   - anything else: nothing is written, and Message says why.
//
// A chat not on disk yet is written as it is.
func SaveChat(path string, lines, base []string) (SaveResult, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return SaveResult{OK: true}, frontmatter.WriteFileAtomic(path, joinLines(lines))
	}
	var res SaveResult
	err := frontmatter.UpdateFile(path, func(data []byte) ([]byte, error) {
		disk := splitLines(data)
		if base == nil || slices.Equal(disk, base) {
			res = SaveResult{OK: true}
			return joinLines(lines), nil
		}
		diskFM, diskBody, diskClosed := splitFrontmatter(disk)
		baseFM, baseBody, _ := splitFrontmatter(base)
		bufFM, bufBody, bufClosed := splitFrontmatter(lines)
		if diskClosed && bufClosed && slices.Equal(diskBody, baseBody) && slices.Equal(bufFM, baseFM) {
			res = SaveResult{OK: true, Merged: true, Frontmatter: diskFM}
			return joinLines(append(slices.Clone(diskFM), bufBody...)), nil
		}
		res = SaveResult{Message: ConflictMessage}
		return data, nil // nothing is written
	})
	return res, err
}

// splitLines is a file's lines as the editor reads them: a final newline
// ends the last line.
func splitLines(data []byte) []string {
	if len(data) == 0 {
		return []string{}
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// joinLines is the file of lines: each ends with a newline.
func joinLines(lines []string) []byte {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// splitFrontmatter cuts lines after the frontmatter's closing fence; closed
// is false when there is no complete frontmatter (then all is body).
func splitFrontmatter(lines []string) (fm, body []string, closed bool) {
	if len(lines) == 0 || lines[0] != "---" {
		return nil, lines, false
	}
	for i := 1; i < len(lines); i++ {
		if lines[i] == "---" || lines[i] == "..." {
			return lines[:i+1], lines[i+1:], true
		}
	}
	return nil, lines, false
}

// save is the rpc method: {path, lines, base?} → {ok, merged, frontmatter,
// message}.
func (h *Host) save(_ context.Context, p params) (any, error) {
	path, err := p.str("path", true)
	if err != nil {
		return nil, err
	}
	lines, err := p.chatLines("lines", true)
	if err != nil {
		return nil, err
	}
	base, err := p.chatLines("base", false)
	if err != nil {
		return nil, err
	}
	res, err := SaveChat(path, lines, base)
	if err != nil {
		return map[string]any{"ok": false, "message": fmt.Sprintf("could not save the chat: %v", err)}, nil
	}
	out := map[string]any{"ok": res.OK, "merged": res.Merged}
	if res.Merged {
		out["frontmatter"] = res.Frontmatter
	}
	if res.Message != "" {
		out["message"] = res.Message
	}
	return out, nil
}

// chatLines returns a whole chat's lines under key (nil when absent and not
// required), bounded by MaxChat bytes in all.
func (p params) chatLines(key string, required bool) ([]string, error) {
	v, ok := p[key]
	if !ok || v == nil {
		if required {
			return nil, badRequest("%s is required", key)
		}
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badRequest("%s must be a list of strings, got %s", key, typeName(v))
	}
	out := make([]string, 0, len(list))
	total := 0
	for i, x := range list {
		var s string
		switch y := x.(type) {
		case string:
			s = y
		case []byte:
			s = string(y)
		default:
			return nil, badRequest("%s[%d] must be a string, got %s", key, i+1, typeName(x))
		}
		if total += len(s) + 1; total > MaxChat {
			return nil, badRequest("%s is too long (more than %d bytes)", key, MaxChat)
		}
		out = append(out, s)
	}
	return out, nil
}
