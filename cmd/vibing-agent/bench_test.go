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
	if out, err := staticBuild(bin, ".", "lean"); err != nil {
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
	if out, err := staticBuild(bin, ".", "lean"); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	hello := buildHello(b, dir)
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

// BenchmarkCheckVsHello runs a whole `vibing-agent check` process and a
// hello-world Go program in turn, both built as make builds (static), and
// reports each one's start-to-exit time and their ratio (SPEC §9: check
// within 1.5x of hello). Measured in pairs, so a machine that drifts
// slows both alike.
func BenchmarkCheckVsHello(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "vibing-agent")
	if out, err := staticBuild(bin, ".", "lean"); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	hello := buildHello(b, dir)
	chat := filepath.Join(dir, "chat.md")
	if err := os.WriteFile(chat, []byte(cliChat), 0o644); err != nil {
		b.Fatal(err)
	}
	run := func(name string, args ...string) time.Duration {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		t0 := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return time.Since(t0)
	}
	var check, plain time.Duration
	for b.Loop() {
		check += run(bin, "check", "--chat", chat, "--tool", "Bash", "--input", `{"command":"npm test && git status"}`)
		plain += run(hello)
	}
	n := float64(b.N)
	b.ReportMetric(float64(check.Microseconds())/n, "check-µs/op")
	b.ReportMetric(float64(plain.Microseconds())/n, "hello-µs/op")
	b.ReportMetric(float64(check)/float64(plain), "check/hello")
}

// buildHello builds a hello-world Go program in dir as make builds
// vibing-agent (static) and returns its path: the yardstick of SPEC §9.
func buildHello(b *testing.B, dir string) string {
	hello := filepath.Join(dir, "hello")
	src := filepath.Join(dir, "hellosrc")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	files := map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	if out, err := staticBuild(hello, src); err != nil {
		b.Fatalf("go build hello: %v\n%s", err, out)
	}
	return hello
}

// staticBuild builds the main package in dir into out as make does, with
// the build tags given (make builds bin/vibing-agent with "lean").
func staticBuild(out, dir string, tags ...string) (string, error) {
	args := []string{"build", "-trimpath", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	b, err := cmd.CombinedOutput()
	return string(b), err
}
