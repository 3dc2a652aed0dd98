package command

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkResolve compares, on the paths a file tool names most, the
// system's resolution (open O_PATH, readlink of /proc/self/fd/N), the
// portable walk, what ResolvePath does (at most three Lstat below the
// working directory, else the system) and filepath.EvalSymlinks.
func BenchmarkResolve(b *testing.B) {
	tmp, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cwd := filepath.Join(tmp, "proj")
	if err := os.MkdirAll(filepath.Join(cwd, "src/pkg"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cwd, "src/pkg/a.go"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	paths := map[string]string{
		"existing":  "src/pkg/a.go",
		"new":       "src/pkg/new.go",
		"newfolder": "src/new/new.go",
		"newincwd":  "a.go",
	}
	for name, rel := range paths {
		abs := filepath.Join(cwd, rel)
		b.Run(name+"/system", func(b *testing.B) {
			for b.Loop() {
				sysRealPath(abs)
			}
		})
		b.Run(name+"/walk", func(b *testing.B) {
			for b.Loop() {
				walkRealPath(abs)
			}
		})
		b.Run(name+"/resolve", func(b *testing.B) {
			for b.Loop() {
				resolveReal(abs, abs, cwd)
			}
		})
		b.Run(name+"/evalsymlinks", func(b *testing.B) {
			for b.Loop() {
				_, _ = filepath.EvalSymlinks(abs)
			}
		})
	}
}
