package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// BenchmarkCheckProcess measures a whole `vibing-agent check` process, start
// to exit (target: under 10 ms).
func BenchmarkCheckProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "vibing-agent")
	if out, err := runGoBuild(bin); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	chat := filepath.Join(dir, "chat.md")
	if err := os.WriteFile(chat, []byte(cliChat), 0o644); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "check", "--chat", chat, "--tool", "Bash", "--input", `{"command":"npm test && git status"}`)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("check: %v\n%s", err, out)
		}
	}
}
