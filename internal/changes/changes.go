package changes

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"vibing/internal/atomicfile"
	"vibing/internal/safefile"
)

// Defaults.
const (
	DefaultKeep    = 20       // turns kept per chat
	DefaultMaxFile = 64 << 20 // bytes of one file that are copied
	ManifestName   = "manifest.json"
	// Version is the manifest's format.
	Version = 1
)

// Who changed a file.
const (
	ByEdit = "edit" // a file tool: Edit, Write, MultiEdit, NotebookEdit
	ByBash = "bash" // a file a Bash line was seen to write
)

// ErrTooLarge is returned by Keep for a file over the size limit.
var ErrTooLarge = errors.New("file too large to keep a copy")

// ChatDir is the folder that holds a chat's turns: <root>/.vibing/turns/<chat
// file name without .md> (a name that is no file name becomes "_").
func ChatDir(root, chatFile string) string {
	name := strings.TrimSuffix(filepath.Base(chatFile), ".md")
	if name == "" || name == "." || name == ".." || strings.ContainsRune(name, filepath.Separator) {
		name = "_"
	}
	return filepath.Join(root, ".vibing", "turns", name)
}

// ForgetChat removes every turn kept for the chat (the chat was deleted).
func ForgetChat(root, chatFile string) error {
	if chatFile == "" || root == "" {
		return errors.New("no chat named")
	}
	return os.RemoveAll(ChatDir(root, chatFile))
}

// Manifest describes one turn's folder.
type Manifest struct {
	Version int       `json:"version"`
	Chat    string    `json:"chat"`
	Turn    int       `json:"turn"` // the message of its run, from 1
	Time    time.Time `json:"time"`
	// Done: the turn ended, and Files holds the files it changed, in the
	// order the files_changed event listed them.
	Done  bool    `json:"done"`
	Files []Entry `json:"files"`
}

// Entry is one file of a turn.
type Entry struct {
	Path    string `json:"path"` // absolute
	By      string `json:"by"`   // ByEdit | ByBash
	Tool    string `json:"tool"` // the tool of the first call that could change it
	Existed bool   `json:"existed"`
	Mode    uint32 `json:"mode,omitempty"`   // permission bits before the turn
	Before  string `json:"before,omitempty"` // the pre-turn copy's name in the folder
	// After is the name of the copy at the end of the turn: "" when the
	// file was gone then, or too large to copy.
	After   string `json:"after,omitempty"`
	Created bool   `json:"created,omitempty"`
	Deleted bool   `json:"deleted,omitempty"`
	// NoCopy: no copy of the content was kept (the agent may not read the
	// file, and could read a copy): the change is seen by a hash kept in
	// memory only, and cannot be shown or reverted.
	NoCopy bool `json:"no_copy,omitempty"`

	sum [sha256.Size]byte // NoCopy: the content's hash before the turn
}

// File is one changed file, as the files_changed event lists it.
type File struct {
	Path     string `json:"path"`
	By       string `json:"by"`
	Tool     string `json:"tool"`
	Created  bool   `json:"created,omitempty"`
	Deleted  bool   `json:"deleted,omitempty"`
	NoCopy   bool   `json:"no_copy,omitempty"`  // no copy was kept (see Entry.NoCopy)
	Snapshot string `json:"snapshot,omitempty"` // the pre-turn copy ("" for a created file, or no copy)
}

// Store keeps the turns of one chat.
type Store struct {
	Dir     string // ChatDir(root, chat)
	Chat    string // the chat file, for the manifest
	Keep    int    // turns kept; 0: DefaultKeep
	MaxFile int64  // 0: DefaultMaxFile
}

// Begin starts one turn; nothing is written before its first Keep.
func (s *Store) Begin(turn int) *Turn {
	if s == nil {
		return nil
	}
	return &Turn{store: s, m: Manifest{Version: Version, Chat: s.Chat, Turn: turn}, byPath: map[string]int{}}
}

func (s *Store) maxFile() int64 {
	if s.MaxFile > 0 {
		return s.MaxFile
	}
	return DefaultMaxFile
}

// Turn records the files one turn may change. Its methods are called from
// one goroutine.
type Turn struct {
	store  *Store
	dir    string // created at the first Keep
	m      Manifest
	byPath map[string]int // path -> index in m.Files
}

// Dir is the turn's folder ("" until a file was kept).
func (t *Turn) Dir() string {
	if t == nil {
		return ""
	}
	return t.dir
}

// Tracks reports whether path is kept for this turn.
func (t *Turn) Tracks(path string) bool {
	if t == nil {
		return false
	}
	_, ok := t.byPath[filepath.Clean(path)]
	return ok
}

// Keep copies path's pre-turn content, once per turn, before a call of tool
// may change it. It reports whether the file is newly kept. With copy false
// only a hash is kept (the agent may not read the file, so no copy it could
// read is written). A file that is not a regular file (a folder, a device)
// is not kept: for a file tool that is an error, for Bash it is skipped, as
// is a file Bash names that cannot be read. Any failure to write the copy
// is an error: the caller refuses the call.
func (t *Turn) Keep(path, tool string, copy bool) (bool, error) {
	if t == nil {
		return false, nil
	}
	path = filepath.Clean(path)
	if _, ok := t.byPath[path]; ok {
		return false, nil
	}
	by := ByEdit
	if tool == "Bash" {
		by = ByBash
	}
	e := Entry{Path: path, By: by, Tool: tool}
	data, mode, existed, err := read(path, t.store.maxFile())
	if err != nil {
		if by == ByBash {
			return false, nil // not seen: Bash changes are listed when they can be
		}
		return false, err
	}
	e.Existed, e.Mode, e.NoCopy = existed, uint32(mode.Perm()), !copy
	if e.NoCopy {
		e.sum = sha256.Sum256(data)
	}
	if err := t.open(); err != nil {
		return false, err
	}
	n := len(t.m.Files) + 1
	if existed && copy {
		e.Before = fmt.Sprintf("%d.before", n)
		if err := atomicfile.Write(filepath.Join(t.dir, e.Before), data, 0o600); err != nil {
			return false, err
		}
	}
	t.m.Files = append(t.m.Files, e)
	t.byPath[path] = n - 1
	if err := t.save(); err != nil {
		t.m.Files = t.m.Files[:n-1]
		delete(t.byPath, path)
		return false, err
	}
	return true, nil
}

// Settle forgets the files a Bash call kept whose content did not change
// when its result came: a change seen later is not that command's.
func (t *Turn) Settle(paths []string) {
	if t == nil {
		return
	}
	for _, p := range paths {
		i, ok := t.byPath[filepath.Clean(p)]
		if !ok || t.m.Files[i].By != ByBash || t.m.Files[i].Path == "" {
			continue
		}
		if changed, _, _ := t.compare(t.m.Files[i]); !changed {
			t.m.Files[i].Path = "" // dropped; indexes stay
			delete(t.byPath, filepath.Clean(p))
		}
	}
}

// Finish ends the turn: the files whose content differs from their pre-turn
// copy, with their content now kept as the after copy. A turn that changed
// nothing leaves no folder; older turns beyond Keep are removed. An error
// (an after copy or the manifest could not be written) comes with the
// files found: the editor then asks before every revert.
func (t *Turn) Finish() ([]File, error) {
	if t == nil || t.dir == "" {
		return nil, nil
	}
	var out []File
	var kept []Entry
	var errs []error
	for i, e := range t.m.Files {
		if e.Path == "" {
			continue
		}
		changed, data, exists := t.compare(e)
		if !changed {
			continue
		}
		e.Created, e.Deleted = !e.Existed && exists, e.Existed && !exists
		if exists && data != nil && !e.NoCopy {
			e.After = fmt.Sprintf("%d.after", i+1)
			if err := atomicfile.Write(filepath.Join(t.dir, e.After), data, 0o600); err != nil {
				errs = append(errs, err)
				e.After = ""
			}
		}
		kept = append(kept, e)
		f := File{Path: e.Path, By: e.By, Tool: e.Tool, Created: e.Created, Deleted: e.Deleted, NoCopy: e.NoCopy}
		if e.Before != "" {
			f.Snapshot = filepath.Join(t.dir, e.Before)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, os.RemoveAll(t.dir)
	}
	t.m.Files, t.m.Done = kept, true
	if err := t.save(); err != nil {
		errs = append(errs, err)
	}
	if err := t.store.prune(t.dir); err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// compare reads e's file now: whether it differs from the pre-turn state,
// its content (nil when gone or too large) and whether it exists.
func (t *Turn) compare(e Entry) (changed bool, data []byte, exists bool) {
	data, _, exists, err := read(e.Path, t.store.maxFile())
	if err != nil {
		// unreadable or too large now: it changed unless it was absent
		// before and is still absent
		_, statErr := os.Stat(e.Path)
		exists = statErr == nil
		return exists || e.Existed, nil, exists
	}
	if exists != e.Existed {
		return true, data, exists
	}
	if !exists {
		return false, nil, false
	}
	if e.NoCopy {
		return sha256.Sum256(data) != e.sum, data, true
	}
	before, err := os.ReadFile(filepath.Join(t.dir, e.Before))
	if err != nil {
		return true, data, true // the copy is gone: say it changed
	}
	return !bytes.Equal(before, data), data, true
}

// open creates the turn's folder.
func (t *Turn) open() error {
	if t.dir != "" {
		return nil
	}
	if err := os.MkdirAll(t.store.Dir, 0o700); err != nil {
		return err
	}
	ignore := filepath.Join(filepath.Dir(t.store.Dir), ".gitignore")
	if _, err := os.Stat(ignore); errors.Is(err, fs.ErrNotExist) {
		// copies of project files are no project files
		if err := atomicfile.Write(ignore, []byte("# vibing: what chat turns changed (pre-turn copies)\n*\n"), 0o600); err != nil {
			return err
		}
	}
	t.m.Time = time.Now().UTC()
	dir, err := os.MkdirTemp(t.store.Dir, fmt.Sprintf("%s-%d-", t.m.Time.Format("20060102T150405.000000"), t.m.Turn))
	if err != nil {
		return err
	}
	t.dir = dir
	return nil
}

func (t *Turn) save() error {
	data, err := json.MarshalIndent(t.m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(t.dir, ManifestName), append(data, '\n'), 0o600)
}

// prune removes the chat's oldest turns beyond Keep (never current).
func (s *Store) prune(current string) error {
	keep := s.Keep
	if keep <= 0 {
		keep = DefaultKeep
	}
	ents, err := os.ReadDir(s.Dir)
	if err != nil {
		return err
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Strings(dirs) // names start with the time
	var errs []error
	for i := 0; i < len(dirs)-keep; i++ {
		if p := filepath.Join(s.Dir, dirs[i]); p != current {
			errs = append(errs, os.RemoveAll(p))
		}
	}
	return errors.Join(errs...)
}

// read returns a regular file's content and mode; a file that does not
// exist is no error (existed false).
func read(path string, max int64) (data []byte, mode fs.FileMode, existed bool, err error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, true, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return nil, 0, true, fmt.Errorf("%s: %w (%d bytes, the limit is %d)", path, ErrTooLarge, fi.Size(), max)
	}
	data, err = safefile.ReadFile(path, max) // it may have become a FIFO since the stat
	if err != nil {
		return nil, 0, true, err
	}
	return data, fi.Mode(), true, nil
}
