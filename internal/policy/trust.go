package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"vibing/internal/safefile"
)

// Trust is the store of project policy files the person trusted (SPEC §11):
// a file's allow rules and mode apply only while its SHA-256 is the one
// recorded here, like direnv's allow. The store lives in the user's state
// folder, which the guard keeps out of every tool's reach.
type Trust struct {
	Path  string                // the store's file
	Files map[string]TrustEntry // absolute file path -> entry
}

// TrustEntry is one trusted file.
type TrustEntry struct {
	SHA256  string    `json:"sha256"`
	Trusted time.Time `json:"trusted"`
}

// LoadTrust reads the store at path; a missing store is empty. A store that
// cannot be read is an error (the caller trusts nothing then).
func LoadTrust(path string) (*Trust, error) {
	t := &Trust{Path: path, Files: map[string]TrustEntry{}}
	data, err := safefile.ReadFile(path, safefile.PolicyLimit)
	if errors.Is(err, os.ErrNotExist) {
		return t, nil
	}
	if err != nil {
		return t, fmt.Errorf("trust store %s: %w", path, pathless(path, err))
	}
	var doc struct {
		Files map[string]TrustEntry `json:"files"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return t, fmt.Errorf("trust store %s: %w", path, err)
	}
	if doc.Files != nil {
		t.Files = doc.Files
	}
	return t, nil
}

// FileSum is the SHA-256 of a policy file's content, in hex. Like the
// loader it reads only a regular file of at most safefile.PolicyLimit.
func FileSum(path string) (string, error) {
	data, err := safefile.ReadFile(path, safefile.PolicyLimit)
	if err != nil {
		return "", err
	}
	return sum(data), nil
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Trusted reports whether the file at path is trusted with content sum.
func (t *Trust) Trusted(path, sum string) bool {
	e, ok := t.Files[path]
	return ok && sum != "" && e.SHA256 == sum
}

// Add records path as trusted with its current content and saves the store
// (atomically: a store that cannot be written is an error, and nothing is
// trusted).
func (t *Trust) Add(path string) (string, error) {
	sum, err := FileSum(path)
	if err != nil {
		return "", err
	}
	next := make(map[string]TrustEntry, len(t.Files)+1)
	for k, v := range t.Files {
		next[k] = v
	}
	next[path] = TrustEntry{SHA256: sum, Trusted: time.Now().UTC().Truncate(time.Second)}
	if err := t.save(next); err != nil {
		return "", err
	}
	t.Files = next
	return sum, nil
}

// Remove forgets path; it reports whether it was trusted.
func (t *Trust) Remove(path string) (bool, error) {
	if _, ok := t.Files[path]; !ok {
		return false, nil
	}
	next := make(map[string]TrustEntry, len(t.Files))
	for k, v := range t.Files {
		if k != path {
			next[k] = v
		}
	}
	if err := t.save(next); err != nil {
		return false, err
	}
	t.Files = next
	return true, nil
}

func (t *Trust) save(files map[string]TrustEntry) error {
	data, err := json.MarshalIndent(struct {
		Files map[string]TrustEntry `json:"files"`
	}{files}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(t.Path), 0o700); err != nil {
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.Path), ".trust-*.json")
	if err != nil {
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	if err := os.Rename(tmp.Name(), t.Path); err != nil {
		return fmt.Errorf("trust store %s: %w", t.Path, err)
	}
	return nil
}
