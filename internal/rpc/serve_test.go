package rpc_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/neovim/go-client/nvim"

	"vibing/internal/rpc"
	"vibing/internal/version"
)

// TestServe talks to the host over msgpack-RPC as the editor does.
func TestServe(t *testing.T) {
	t.Parallel()
	hostR, clientW := io.Pipe()
	clientR, hostW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- (&rpc.Host{}).Serve(ctx, hostR, hostW, hostW) }()
	client, err := nvim.New(clientR, clientW, clientW, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	go client.Serve()
	defer func() {
		client.Close()
		cancel()
		<-done
	}()

	var v string
	if err := client.Request("version", &v, map[string]any{}); err != nil || v != version.Version {
		t.Fatalf("Request(version) = %q, %v, want %q", v, err, version.Version)
	}
	var rc map[string]any
	if err := client.Request("validate_rule", &rc, map[string]any{"rule": "bash(npm:*)"}); err != nil || rc["rule"] != "Bash(npm:*)" {
		t.Errorf("Request(validate_rule) = %v, %v, want rule Bash(npm:*)", rc, err)
	}
	tests := []struct {
		method string
		args   []any
		want   string
	}{
		{"validate_rule", []any{map[string]any{"rule": 7}}, "rule must be a string"},
		{"validate_rule", []any{"Bash"}, "takes a map argument"},
		{"settings", []any{map[string]any{"lines": []any{strings.Repeat("x", rpc.MaxString+1)}}}, "too long"},
		{"nope", nil, "unknown"},
	}
	for _, tt := range tests {
		var out any
		err := client.Request(tt.method, &out, tt.args...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Request(%s, %v) error = %v, want one mentioning %q", tt.method, tt.args, err, tt.want)
		}
	}
	// The host is still serving after the bad requests.
	if err := client.Request("version", &v, map[string]any{}); err != nil {
		t.Errorf("Request(version) after bad input: %v", err)
	}
}
