package demo_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"vibing/internal/demo"
	"vibing/internal/frontmatter"
)

func TestDemoProjectChat(t *testing.T) {
	p := newProject(t)
	if want := filepath.Join(p.dir, ".vibing", "chat", "demo.md"); p.chat != want {
		t.Errorf("printed chat path %q, want %q", p.chat, want)
	}
	doc, err := frontmatter.ReadFile(p.chat)
	if err != nil {
		t.Fatal(err)
	}
	got, err := doc.Settings()
	if err != nil {
		t.Fatal(err)
	}
	want := frontmatter.Settings{Vibing: true, CreatedAt: got.CreatedAt, Mode: "default",
		Allow: []string{"Read(**)"}, Ask: []string{"WebFetch"}, Deny: []string{"Read(.env)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chat settings = %+v, want %+v", got, want)
	}
	body := p.read(t, ".vibing/chat/demo.md")
	if !strings.Contains(body, "## User\n\nShow me what you can do in this project.\n") {
		t.Errorf("chat body lacks the User message:\n%s", body)
	}
	for _, f := range []string{demo.ReadmeFile, demo.HelloFile, ".env"} {
		if _, err := os.Stat(filepath.Join(p.dir, f)); err != nil {
			t.Errorf("demo project lacks %s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(p.dir, ".git")); !os.IsNotExist(err) {
		t.Errorf("demo project has a .git folder: %v", err)
	}
}

func TestDemoProjectIdempotent(t *testing.T) {
	p := newProject(t)
	hello := filepath.Join(p.dir, demo.HelloFile)
	if err := os.WriteFile(hello, []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	chat, err := makeProject(t, p.dir)
	if err != nil || chat != p.chat {
		t.Fatalf("second run = %q, %v; want %q", chat, err, p.chat)
	}
	if got := p.read(t, demo.HelloFile); got != "changed\n" {
		t.Errorf("a second run rewrote hello.py: %q", got)
	}
	if _, err := makeProject(t, "--reset", p.dir); err != nil {
		t.Fatalf("--reset: %v", err)
	}
	if got := p.read(t, demo.HelloFile); !strings.Contains(got, `greet("world")`) {
		t.Errorf("--reset left hello.py as %q", got)
	}
}

func TestDemoProjectRefusesOtherFolders(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := makeProject(t, dir); err == nil {
		t.Errorf("demo-project.sh on a non-empty project = %q, want an error", out)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("the refused folder now holds %d entries, want 1", len(entries))
	}
	if out, err := makeProject(t); err == nil {
		t.Errorf("demo-project.sh without DIR = %q, want a usage error", out)
	}
}
