package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// A script writes what a Write or Edit deny rule names: the kernel
// refuses it (the files are read-only inside), while the files next to
// them stay writable. Under vibing-agent run, the real CLI, every call
// allowed.
func TestSandboxHoldsWriteDenies(t *testing.T) {
	needSandbox(t)
	script := strings.Join([]string{
		"python3 -c 'open(\"config/prod.yaml\", \"w\").write(\"pwned\")' 2>&1 | tail -1",
		"echo pwned > migrations/001.sql",
		"echo pwned > migrations/002.sql",
		"echo v2 > config/dev.yaml && echo dev-written",
		"echo done-write",
	}, "\n")
	w := newWorld(t, "permissions_mode: bypassPermissions\npermissions_deny: [\"Edit(config/prod.yaml)\", \"Write(migrations/**)\"]\n", "sandbox: \"on\"\n",
		bash("sh write.sh"), fakeapi.Turn{Text: "done"})
	must(t, os.MkdirAll(filepath.Join(w.dir, "config"), 0o755))
	must(t, os.MkdirAll(filepath.Join(w.dir, "migrations"), 0o755))
	w.write(filepath.Join(w.dir, "config", "prod.yaml"), "v1\n")
	w.write(filepath.Join(w.dir, "config", "dev.yaml"), "v1\n")
	w.write(filepath.Join(w.dir, "migrations", "001.sql"), "v1\n")
	w.write(filepath.Join(w.dir, "write.sh"), script+"\n")
	res := w.run(allowAll)
	if res.code != 0 {
		t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
	}
	results := toolResults(w.api)
	for _, want := range []string{"Read-only file system", "dev-written", "done-write"} {
		if !strings.Contains(results, want) {
			t.Errorf("tool results lack %q:\n%s", want, results)
		}
	}
	for f, want := range map[string]string{"config/prod.yaml": "v1\n", "migrations/001.sql": "v1\n", "config/dev.yaml": "v2\n"} {
		if got, _ := os.ReadFile(filepath.Join(w.dir, f)); string(got) != want {
			t.Errorf("%s = %q, want %q", f, got, want)
		}
	}
	if w.exists("migrations/002.sql") {
		t.Errorf("a new file was made in a folder a Write deny rule names")
	}
}
