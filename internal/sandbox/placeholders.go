package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// A path that must not be created in a writable folder (a missing
// CLAUDE.md, .mcp.json, .claude/) is held by a read-only bind, which needs
// a mount point: an empty file or folder on disk, visible outside while the
// sandbox runs. Removing it while another sandbox has its bind on it would
// undo that bind (the kernel detaches mounts on a path that is unlinked),
// so placeholders are reference-counted with flock(2), per path and across
// every vibing process of the user whatever its state folder:
//
//   - each placeholder has a registry file (named by a hash of its path,
//     holding the path) in the user's placeholder registry;
//   - a sandbox holds a shared lock on the registry file of every
//     placeholder it binds over — one it made, or one another sandbox made
//     (an existing path with a registry file) — and makes the placeholder
//     again if it went away before it got the lock;
//   - when the sandbox ended it drops its locks, and a placeholder whose
//     registry file it can then lock exclusively at once (no one else
//     relies on it) is removed when still empty, with its registry file;
//   - every Prepare does the same for the registry files left by sandboxes
//     that were killed (their locks went with them).

// hold is one placeholder a sandbox relies on.
type hold struct {
	path string
	lock *os.File
}

// registry is the user's placeholder registry: $XDG_RUNTIME_DIR/vibing/
// placeholders, else vibing-<uid>/placeholders in the temporary folder. It
// must be the user's own folder.
func registry() (string, error) {
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base != "" {
		base = filepath.Join(base, "vibing")
	} else {
		base = filepath.Join(os.TempDir(), "vibing-"+strconv.Itoa(os.Getuid()))
	}
	dir := filepath.Join(base, "placeholders")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sandbox: the placeholder registry: %w", err)
	}
	for _, d := range []string{base, dir} {
		fi, err := os.Lstat(d)
		if err != nil {
			return "", fmt.Errorf("sandbox: the placeholder registry: %w", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
			return "", fmt.Errorf("sandbox: the placeholder registry %s is not a folder of yours that only you can write", d)
		}
	}
	return dir, nil
}

func registryFile(dir, path string) string {
	h := sha256.Sum256([]byte(path))
	return filepath.Join(dir, hex.EncodeToString(h[:16]))
}

// placeholder makes sure path is held while the sandbox runs when it is a
// placeholder (missing now, or one another sandbox made), and reports
// whether it is one: then the sandbox binds an empty file or folder over
// it. An existing path of the person's is not one.
func (p *Prepared) placeholder(path string, dir, missing bool) (bool, error) {
	reg, err := registry()
	if err != nil {
		return false, err
	}
	rf := registryFile(reg, path)
	if !missing {
		_, regErr := os.Stat(rf)
		_, pathErr := os.Lstat(path)
		if regErr != nil && pathErr == nil {
			return false, nil // the person's
		}
		// another sandbox's placeholder, or one removed since the view was
		// derived: hold it (again)
	}
	lock, err := lockFile(rf, syscall.LOCK_SH, true)
	if err != nil {
		return false, fmt.Errorf("sandbox: placeholder %s: %w", path, err)
	}
	if fi, _ := lock.Stat(); fi != nil && fi.Size() == 0 {
		if _, err := lock.WriteAt([]byte(path), 0); err != nil {
			lock.Close()
			return false, fmt.Errorf("sandbox: placeholder %s: %w", path, err)
		}
	}
	if err := makeEmpty(path, dir); err != nil {
		lock.Close()
		return false, fmt.Errorf("sandbox: placeholder %s: %w", path, err)
	}
	p.holds = append(p.holds, hold{path: path, lock: lock})
	return true, nil
}

// makeEmpty creates path as an empty file or folder unless something is
// there already.
func makeEmpty(path string, dir bool) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	var err error
	if dir {
		err = os.Mkdir(path, 0o700)
	} else {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
			err = f.Close()
		}
	}
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}

// lockFile opens (creating it when create) and locks the registry file at
// rf, and checks that the locked file is still the one at rf (a remover may
// have unlinked it meanwhile; then it tries again).
func lockFile(rf string, how int, create bool) (*os.File, error) {
	flags := os.O_RDWR
	if create {
		flags |= os.O_CREATE
	}
	for try := 0; try < 8; try++ {
		f, err := os.OpenFile(rf, flags, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), how); err != nil {
			f.Close()
			return nil, err
		}
		if sameFile(f, rf) {
			return f, nil
		}
		f.Close()
		if !create {
			return nil, fs.ErrNotExist
		}
	}
	return nil, fmt.Errorf("%s kept being replaced", rf)
}

func sameFile(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// release drops the sandbox's locks and removes the placeholders no other
// sandbox holds.
func (p *Prepared) release() {
	holds := p.holds
	p.holds = nil
	for _, h := range holds {
		_ = h.lock.Close()
	}
	reg, err := registry()
	if err != nil {
		return
	}
	for _, h := range holds {
		tryRemove(registryFile(reg, h.path))
	}
}

// tryRemove removes the placeholder registered in rf, and rf, when no
// sandbox holds it; a placeholder with content is the person's now and
// stays.
func tryRemove(rf string) {
	f, err := lockFile(rf, syscall.LOCK_EX|syscall.LOCK_NB, false)
	if err != nil {
		return // held by a running sandbox, or gone
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.ReadAt(buf, 0)
	if n > 0 {
		removeIfEmpty(string(buf[:n]))
	}
	_ = os.Remove(rf)
}

// sweepPlaceholders removes the placeholders that sandboxes killed before
// their cleanup left, once no running sandbox holds them.
func sweepPlaceholders() {
	reg, err := registry()
	if err != nil {
		return
	}
	names, _ := filepath.Glob(filepath.Join(reg, "*"))
	for _, rf := range names {
		tryRemove(rf)
	}
}
