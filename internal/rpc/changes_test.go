package rpc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"vibing/internal/rpc"
)

func TestForgetChanges(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	chat := filepath.Join(root, ".vibing", "chat", "chat-1.md")
	kept := filepath.Join(root, ".vibing", "turns", "chat-1", "20261124T001733.000000-1-1")
	other := filepath.Join(root, ".vibing", "turns", "chat-2")
	for _, d := range []string{kept, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	h := &rpc.Host{}
	tests := []struct {
		name    string
		args    map[string]any
		wantErr bool
	}{
		{"no chat", map[string]any{"cwd": root}, true},
		{"a chat from elsewhere", map[string]any{"chat": chat, "cwd": "/"}, false},
	}
	for _, tt := range tests {
		reply, err := h.Handle(context.Background(), "forget_changes", []any{tt.args})
		if (err != nil) != tt.wantErr {
			t.Fatalf("%s: forget_changes = %v, %v", tt.name, reply, err)
		}
		if err == nil && reply.(map[string]any)["ok"] != true {
			t.Errorf("%s: reply %v, want ok", tt.name, reply)
		}
	}
	if _, err := os.Stat(filepath.Dir(kept)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the chat's turns are still there (%v)", err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another chat's turns went too: %v", err)
	}
}
