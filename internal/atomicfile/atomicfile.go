// Package atomicfile writes a file whole or not at all: a reader (or a
// crash) sees the old content or the new one, never part of it.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes data to a temporary file beside path with the given mode,
// syncs it and renames it over path; on any error the temporary file is
// removed and path is left as it was.
func Write(path string, data []byte, mode fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
