package rpc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"vibing/internal/rpc"
	"vibing/internal/version"
)

func lines(s ...string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func TestHandleBadInput(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", rpc.MaxString+1)
	many := make([]any, rpc.MaxLines+1)
	for i := range many {
		many[i] = "a: b"
	}
	fm := lines("---", "vibing.nvim: true", "---")
	tests := []struct {
		name   string
		method string
		args   []any
	}{
		{"unknown method", "nope", nil},
		{"two arguments", "version", []any{map[string]any{}, map[string]any{}}},
		{"string argument", "validate_rule", []any{"Bash"}},
		{"number argument", "settings", []any{int64(3)}},
		{"rule missing", "validate_rule", []any{map[string]any{}}},
		{"rule is a number", "validate_rule", []any{map[string]any{"rule": int64(1)}}},
		{"rule is a list", "validate_rule", []any{map[string]any{"rule": []any{"Bash"}}}},
		{"rule too long", "validate_rule", []any{map[string]any{"rule": huge}}},
		{"lines missing", "settings", []any{map[string]any{}}},
		{"lines a string", "settings", []any{map[string]any{"lines": "---"}}},
		{"lines hold a number", "settings", []any{map[string]any{"lines": []any{"---", int64(2)}}}},
		{"a line too long", "settings", []any{map[string]any{"lines": []any{"---", huge}}}},
		{"too many lines", "settings", []any{map[string]any{"lines": many}}},
		{"edit without op", "edit", []any{map[string]any{"lines": fm}}},
		{"edit unknown op", "edit", []any{map[string]any{"lines": fm, "op": "drop"}}},
		{"edit op a bool", "edit", []any{map[string]any{"lines": fm, "op": true}}},
		{"edit unknown list", "edit", []any{map[string]any{"lines": fm, "op": "add", "list": "maybe", "rules": lines("Bash")}}},
		{"edit rules a map", "edit", []any{map[string]any{"lines": fm, "op": "add", "list": "allow", "rules": map[string]any{"a": "b"}}}},
		{"edit no rules", "edit", []any{map[string]any{"lines": fm, "op": "add", "list": "allow"}}},
		{"explain cwd a number", "explain", []any{map[string]any{"lines": fm, "cwd": 1.5}}},
		{"audit negative limit", "audit", []any{map[string]any{"limit": int64(-1)}}},
		{"audit huge limit", "audit", []any{map[string]any{"limit": uint64(1 << 62)}}},
		{"audit bad since", "audit", []any{map[string]any{"since": "yesterday"}}},
		{"audit since a number", "audit", []any{map[string]any{"since": int64(5)}}},
	}
	h := &rpc.Host{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := h.Handle(context.Background(), tt.method, tt.args)
			if err == nil {
				t.Fatalf("Handle(%q, %v) = %v, want an error", tt.method, tt.args, got)
			}
			if !errors.Is(err, rpc.ErrBadRequest) {
				t.Errorf("Handle(%q) error = %v, want ErrBadRequest", tt.method, err)
			}
		})
	}
}

func TestHandleVersionAndInfo(t *testing.T) {
	t.Parallel()
	h := &rpc.Host{}
	v, err := h.Handle(context.Background(), "version", nil)
	if err != nil || v != version.Version {
		t.Fatalf("Handle(version) = %v, %v, want %q", v, err, version.Version)
	}
	// An empty Lua table arrives as an empty list.
	got, err := h.Handle(context.Background(), "info", []any{[]any{}})
	if err != nil {
		t.Fatalf("Handle(info) error = %v", err)
	}
	m := got.(map[string]any)
	if names := m["tools"].([]string); len(names) == 0 || !contains(names, "Bash") {
		t.Errorf("info tools = %v, want a list with Bash", names)
	}
	if presets := m["presets"].([]string); !contains(presets, "standard") {
		t.Errorf("info presets = %v, want standard among them", presets)
	}
	if args := m["args"].(map[string]any); args["Bash"] != "command" || args["Read"] != "path" || args["WebFetch"] != "domain" {
		t.Errorf("info args = %v, want Bash command, Read path, WebFetch domain", args)
	}
	// The value sets the editor keeps copies of (tests/lua/values_spec.lua).
	for key, want := range map[string]string{
		"modes":      "default acceptEdits plan dontAsk bypassPermissions",
		"answers":    "allow_once deny_once allow_for_session deny_for_session always_allow always_deny",
		"policies":   "trust once always",
		"resume_ask": "deny prompt",
		"sandbox":    "auto on off",
		"decisions":  "allow ask deny",
		"outcomes":   "allow deny ask_approved ask_denied ask_timeout ask_pending ask_cli defer",
	} {
		if got := fmt.Sprint(m[key]); got != "["+want+"]" {
			t.Errorf("info %s = %v, want %s", key, m[key], want)
		}
	}
}

func TestAuditUnavailableAndWired(t *testing.T) {
	t.Parallel()
	got, err := (&rpc.Host{}).Handle(context.Background(), "audit", nil)
	if err != nil {
		t.Fatalf("Handle(audit) error = %v", err)
	}
	if m := got.(map[string]any); m["ok"] != false {
		t.Errorf("Handle(audit) without a log = %v, want ok=false", m)
	}
	var seen rpc.AuditQuery
	h := &rpc.Host{Audit: func(_ context.Context, q rpc.AuditQuery) ([]map[string]any, error) {
		seen = q
		return []map[string]any{{"tool": "Bash"}}, nil
	}}
	got, err = h.Handle(context.Background(), "audit", []any{map[string]any{"chat": "/c.md", "since": "2d"}})
	if err != nil {
		t.Fatalf("Handle(audit) error = %v", err)
	}
	rows := got.(map[string]any)["rows"].([]map[string]any)
	if len(rows) != 1 || seen.Chat != "/c.md" || seen.Since.Hours() != 48 || seen.Limit != rpc.DefaultAuditLimit {
		t.Errorf("audit rows = %v, query = %+v, want one row for /c.md since 48h limit %d", rows, seen, rpc.DefaultAuditLimit)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func readChat(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/chat.md")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}
