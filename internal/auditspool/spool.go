package auditspool

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"vibing/internal/safefile"
)

// Entry is one spooled audit row; the fields are those of the database.
type Entry struct {
	Time      time.Time `json:"time"`
	Chat      string    `json:"chat,omitempty"`
	SessionID string    `json:"session_id,omitempty"`
	Tool      string    `json:"tool,omitempty"`
	Action    string    `json:"action,omitempty"`
	Decision  string    `json:"decision"`
	Rule      string    `json:"rule,omitempty"`
	Source    string    `json:"source,omitempty"` // the engine's, as in the audit column
	Via       string    `json:"via,omitempty"`    // hook or mention: what decided (the audit column)
	Reason    string    `json:"reason,omitempty"`
	// Resumed and Cwd are the audit columns of the same names: nil and ""
	// in a line of a hook that did not write them.
	Resumed *bool  `json:"resumed,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
}

// importing marks a spool that an importer took over ("<spool>.importing-<ns>").
const importing = ".importing-"

// For is the spool of the audit database at db.
func For(db string) string { return db + ".hook-spool" }

// maxTries bounds how often Append reopens a spool that was renamed away
// between its open and its lock.
const maxTries = 8

// Append adds e as one line to the spool at path, creating the file (mode
// 0600) and its folder (0700) when needed. A nil error means the line is in
// the file: the write is one write(2) under an exclusive lock.
func Append(path string, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit spool: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("audit spool: cannot create the folder of %s: %w", path, err)
	}
	for try := 0; try < maxTries; try++ {
		done, err := appendOnce(path, line)
		if err != nil {
			return fmt.Errorf("audit spool: cannot write %s: %w", path, err)
		}
		if done {
			return nil
		}
	}
	return fmt.Errorf("audit spool: %s kept being replaced while writing", path)
}

// appendOnce writes line when the file it locked is still the spool; false
// (and no error) means it was renamed away meanwhile. A spool that is not a
// regular file (a FIFO would block the hook's open(2) until a reader came)
// is an error: the hook then refuses the call it records.
func appendOnce(path string, line []byte) (bool, error) {
	f, err := safefile.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600) // (read: does it end in a newline)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return false, err
	}
	if !sameFile(f, path) {
		return false, nil
	}
	torn, err := endsTorn(f)
	if err != nil {
		return false, err
	}
	if torn {
		// a writer was killed mid-line: this row starts a line of its own
		// rather than end that one, where the import could not read it
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(line); err != nil {
		return false, err
	}
	return true, f.Close()
}

// endsTorn reports whether f's last line has no newline.
func endsTorn(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// ErrUnreadable is wrapped when spooled lines could not be read; the file
// holding them is kept (renamed "*.unreadable-<ns>") for a person to look at.
var ErrUnreadable = errors.New("audit spool: unreadable lines")

// Import hands every spooled entry to record, oldest file first, and removes
// each file once record accepted its entries. A file whose entries record
// refused stays (under its importing name) and is taken again by the next
// Import, so nothing is lost; it returns how many entries were recorded.
func Import(path string, record func([]Entry) error) (int, error) {
	if err := takeOver(path); err != nil {
		return 0, err
	}
	files, err := filepath.Glob(globEscape(path) + importing + "*")
	if err != nil {
		return 0, fmt.Errorf("audit spool: %w", err)
	}
	sort.Strings(files)
	n := 0
	var errs []error
	for _, f := range files {
		k, err := importFile(f, record)
		n += k
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errors.Join(errs...)
}

// takeOver renames the spool to an importing name while holding its lock.
func takeOver(path string) error {
	f, err := safefile.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit spool: %w", err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return fmt.Errorf("audit spool: lock %s: %w", path, err)
	}
	if !sameFile(f, path) {
		return nil // another importer took it
	}
	to := path + importing + strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := os.Rename(path, to); err != nil {
		return fmt.Errorf("audit spool: %w", err)
	}
	return nil
}

func importFile(name string, record func([]Entry) error) (int, error) {
	f, err := safefile.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil // another importer finished it
	}
	if err != nil {
		return 0, fmt.Errorf("audit spool: %w", err)
	}
	defer f.Close()
	// one importer per file: a second one waits, then finds it gone
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		return 0, fmt.Errorf("audit spool: lock %s: %w", name, err)
	}
	if !sameFile(f, name) {
		return 0, nil
	}
	entries, bad, err := readEntries(f)
	if err != nil {
		return 0, fmt.Errorf("audit spool: read %s: %w", name, err)
	}
	if len(entries) > 0 {
		if err := record(entries); err != nil {
			return 0, fmt.Errorf("audit spool: %s kept for the next import: %w", name, err)
		}
	}
	if len(bad) > 0 {
		kept := strings.Replace(name, importing, ".unreadable-", 1)
		if err := os.Rename(name, kept); err != nil {
			return len(entries), fmt.Errorf("audit spool: %w", err)
		}
		return len(entries), fmt.Errorf("%w: lines %v of %s are torn or not audit rows (every whole row was imported; the file is kept there)", ErrUnreadable, bad, kept)
	}
	if err := os.Remove(name); err != nil && !errors.Is(err, os.ErrNotExist) {
		return len(entries), fmt.Errorf("audit spool: %w", err)
	}
	return len(entries), nil
}

// readEntries parses a spool's lines; bad holds the numbers of lines that
// are not entries, or not only entries (a write cut short by a crash, say).
func readEntries(r io.Reader) (entries []Entry, bad []int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for i := 1; sc.Scan(); i++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if e, ok := parseEntry(sc.Bytes()); ok {
			entries = append(entries, e)
			continue
		}
		bad = append(bad, i)
		entries = append(entries, salvage(sc.Bytes())...)
	}
	return entries, bad, sc.Err()
}

func parseEntry(b []byte) (Entry, bool) {
	var e Entry
	err := json.Unmarshal(b, &e)
	return e, err == nil && e.Decision != ""
}

// rowStart begins every spooled row (json.Marshal writes Time first, and
// escapes the quotes of any string that could hold these bytes).
var rowStart = []byte(`{"time":`)

// salvage returns the whole rows of a line that does not parse: a writer
// older than the torn-line check glued its row to the end of a torn one.
func salvage(line []byte) []Entry {
	var out []Entry
	for len(line) > 0 {
		next := bytes.Index(line[1:], rowStart)
		piece := line
		if next >= 0 {
			piece, line = line[:next+1], line[next+1:]
		} else {
			line = nil
		}
		if e, ok := parseEntry(piece); ok {
			out = append(out, e)
		}
	}
	return out
}

// globEscape quotes the glob metacharacters of a literal path.
func globEscape(p string) string {
	var b []byte
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, p[i])
	}
	return string(b)
}
