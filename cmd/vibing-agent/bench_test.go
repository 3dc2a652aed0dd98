package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// BenchmarkHookProcess measures a whole `vibing-agent hook` process with its
// audit row (the spool), start to exit, beside a hello-world Go binary; it
// reports the ratio (SPEC §9: within 1.5x).
func BenchmarkHookProcess(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "vibing-agent")
	if out, err := runGoBuild(bin); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	hello := filepath.Join(dir, "hello")
	src := filepath.Join(dir, "hello.go")
	if err := os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("go", "build", "-o", hello, src).CombinedOutput(); err != nil {
		b.Fatalf("go build hello: %v\n%s", err, out)
	}
	input := `{"session_id":"bench","cwd":"` + dir + `","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test && git status"}}`
	env := append(os.Environ(), "XDG_STATE_HOME="+filepath.Join(dir, "state"))
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(input)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return time.Since(start)
	}
	var hook, base time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		hook += run(bin, "hook")
		b.StopTimer()
		base += run(hello)
		b.StartTimer()
	}
	b.ReportMetric(float64(hook)/float64(base), "x-hello")
}
