package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	"vibing/internal/config"
)

// AuditQuery selects audit rows: those of one chat (all when empty), newer
// than Since ago (all when zero), at most Limit (a default when zero).
type AuditQuery struct {
	Chat  string
	Since time.Duration
	Limit int
}

// AuditFunc reads audit rows; each row is a plain map (time, chat, session,
// tool, action, decision, rule, source). The command wires it to the audit
// database so this package does not depend on how rows are stored.
type AuditFunc func(ctx context.Context, q AuditQuery) ([]map[string]any, error)

// Host answers the plugin's requests.
type Host struct {
	Config     *config.Config // the merged setup() options; defaults when nil
	ConfigFile string         // where Config came from (guarded by the session)
	Audit      AuditFunc      // nil: the audit log is unavailable
	Logf       func(format string, a ...any)
}

type method func(h *Host, ctx context.Context, p params) (any, error)

var methods = map[string]method{
	"info":           (*Host).info,
	"version":        (*Host).version,
	"validate_rule":  (*Host).validateRule,
	"check_command":  (*Host).checkCommand,
	"settings":       (*Host).settings,
	"edit":           (*Host).edit,
	"explain":        (*Host).explain,
	"audit":          (*Host).audit,
	"mentions":       (*Host).mentions,
	"save":           (*Host).save,
	"forget_changes": (*Host).forgetChanges,
}

// Methods lists the method names the host answers, sorted.
func Methods() []string {
	out := make([]string, 0, len(methods))
	for n := range methods {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Handle answers one request. Bad arguments and a panic inside a method give
// an error; a person's mistake (a bad rule, a malformed frontmatter) is an
// ordinary reply with ok=false and an error message.
func (h *Host) Handle(ctx context.Context, name string, args []any) (reply any, err error) {
	m, ok := methods[name]
	if !ok {
		return nil, badRequest("unknown method %q", name)
	}
	defer func() {
		if r := recover(); r != nil {
			h.logf("rpc: %s panicked: %v\n%s", name, r, debug.Stack())
			reply, err = nil, fmt.Errorf("vibing-agent: internal error in %s: %v", name, r)
		}
	}()
	p, err := paramsFrom(name, args)
	if err != nil {
		return nil, err
	}
	return m(h, ctx, p)
}

func (h *Host) cfg() *config.Config {
	if h.Config == nil {
		return config.DefaultConfig()
	}
	return h.Config
}

func (h *Host) logf(format string, a ...any) {
	if h.Logf != nil {
		h.Logf(format, a...)
	}
}

// failed is the reply for a person's mistake.
func failed(msg string) map[string]any { return map[string]any{"ok": false, "error": msg} }

// plainAs turns v (a struct with json tags, or a list of them) into the
// plain type T the plugin receives (a map for an object, a list for an
// array), so Lua sees the same field names as `vibing-agent explain --json`.
func plainAs[T any](v any) (T, error) {
	var out T
	b, err := json.Marshal(v)
	if err != nil {
		return out, err
	}
	err = json.Unmarshal(b, &out)
	return out, err
}

// plain is plainAs for an object.
func plain(v any) (map[string]any, error) { return plainAs[map[string]any](v) }
