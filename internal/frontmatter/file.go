package frontmatter

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"vibing/internal/safefile"
)

// WriteFileAtomic writes data to path through a temp file in the same folder
// and a rename, keeping the file's mode. A symlink is followed, so the link
// stays a link. The temp file is fsynced before the rename and the folder
// after it.
func WriteFileAtomic(path string, data []byte) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	ok = true
	if df, err := os.Open(dir); err == nil {
		df.Sync()
		df.Close()
	}
	return nil
}

// EditFile reads path, applies fn, and writes the result atomically while
// holding an advisory lock, so concurrent edits never interleave or tear.
//
// The lock is a flock on the chat file itself. Because the write replaces the
// file by a rename, a waiter that wakes up holding the lock of the replaced
// file notices (the path no longer names the file it locked) and tries again.
// Nothing is written when fn fails or changes nothing.
func EditFile(path string, fn func(*Document) error) error {
	return UpdateFile(path, func(data []byte) ([]byte, error) {
		d, err := Parse(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := fn(d); err != nil {
			return nil, err
		}
		return d.Bytes(), nil
	})
}

// UpdateFile reads path under the chat's lock (the one EditFile and
// AppendFile hold), passes its content to fn and writes what fn returns
// atomically before the lock is released: whatever another holder of the
// lock wrote before is read, never overwritten. Nothing is written when fn
// fails or returns the content unchanged.
func UpdateFile(path string, fn func(data []byte) ([]byte, error)) error {
	link := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	f, err := lockFile(path)
	if err != nil {
		return named(link, path, err)
	}
	defer f.Close() // closing releases the lock
	// read the file lockFile checked, not whatever the path names now
	data, err := safefile.ReadAll(f, safefile.ChatLimit)
	if err != nil {
		return err
	}
	out, err := fn(data)
	if err != nil {
		return err
	}
	if bytes.Equal(out, data) {
		return nil
	}
	return WriteFileAtomic(path, out)
}

// AppendFile appends data to the end of the chat at path under its lock, so
// an append is never lost to an edit that replaces the file (an edit read
// the file before the append and renamed its copy over it after). The
// append is fsynced before the lock is released.
func AppendFile(path string, data []byte) error {
	link := path
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	f, err := lockFile(path)
	if err != nil {
		return named(link, path, err)
	}
	defer f.Close()
	a, err := safefile.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = a.Write(data)
	if err == nil {
		err = a.Sync()
	}
	if cerr := a.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}

// named makes an error about real, the file the chat's symlink link points
// to, name the chat too.
func named(link, real string, err error) error {
	if link == real {
		return err
	}
	return fmt.Errorf("%s: %w", link, err)
}

// lockFile opens path and holds an exclusive flock on the file it names now.
// Only a regular file is opened, without blocking: a FIFO would hang open(2).
func lockFile(path string) (*os.File, error) {
	for {
		f, err := safefile.Open(path)
		if err != nil {
			return nil, err
		}
		if err := flock(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close()
		if err2 != nil {
			return nil, err2
		}
	}
}

func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
