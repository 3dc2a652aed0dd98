// Package safefile opens the files vibing reads its rules, settings and
// chats from without ever blocking, and reads them with a bound.
//
// A path the agent or a repository can point anywhere must not stop the
// engine: a named pipe (FIFO) blocks open(2) and read(2) until a writer
// comes, and a symlink to /dev/zero reads until memory runs out. So a file
// is stat'ed first (no open of a device at all), opened with O_NONBLOCK and
// fstat'ed (the path may have changed in between), only a regular file is
// accepted, and no more than a limit is read. A folder is opened with
// O_DIRECTORY, which refuses anything else without blocking.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"syscall"
)

// Limits of what is read into memory. Policy and settings files are a few
// kilobytes of rules; chats hold a conversation's text and tool output.
const (
	PolicyLimit = 4 << 20   // 4 MiB: policy files, Claude settings, the trust store, the config
	ChatLimit   = 128 << 20 // 128 MiB: a chat file
)

var (
	// ErrNotRegular is wrapped when a path names a FIFO, a device, a
	// socket or a folder where a file is expected.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge is wrapped when a file is larger than the limit it is
	// read with.
	ErrTooLarge = errors.New("file too large")
)

// Open opens path for reading; see OpenFile.
func Open(path string) (*os.File, error) {
	return OpenFile(path, os.O_RDONLY, 0)
}

// OpenFile opens path with flag (and perm when flag creates it) without
// blocking, and only when it is a regular file (after following symlinks).
// Errors are *fs.PathError; one for a file that is not regular wraps
// ErrNotRegular and says what it is.
func OpenFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	// stat first: a device is never opened (opening one can have effects)
	if fi, err := os.Stat(path); err == nil {
		if err := regular(path, fi); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) || flag&os.O_CREATE == 0 {
		return nil, err
	}
	f, err := os.OpenFile(path, flag|syscall.O_NONBLOCK, perm)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = regular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// ReadFile reads the regular file at path, at most limit bytes: a larger
// file is an error wrapping ErrTooLarge.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadAll(f, limit)
}

// ReadAll reads f from its offset to its end, at most limit bytes.
func ReadAll(f *os.File, limit int64) ([]byte, error) {
	if fi, err := f.Stat(); err == nil && fi.Size() > limit {
		return nil, tooLarge(f.Name(), limit) // without reading it
	}
	// one byte past the limit tells a file that grew from one that fits
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, tooLarge(f.Name(), limit)
	}
	return data, nil
}

// ReadDirNames lists the folder at path, sorted. It never blocks: a path
// that is not a folder (a FIFO, a file) is an error (ENOTDIR), as is one
// that cannot be read. A folder that does not exist wraps fs.ErrNotExist.
func ReadDirNames(path string) ([]string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	return names, nil
}

func regular(path string, fi fs.FileInfo) error {
	if fi.Mode().IsRegular() {
		return nil
	}
	return &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

func tooLarge(path string, limit int64) error {
	size := fmt.Sprintf("%d bytes", limit)
	if limit >= 1<<20 && limit%(1<<20) == 0 {
		size = fmt.Sprintf("%d MiB", limit>>20)
	}
	return &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (over %s)", ErrTooLarge, size)}
}
