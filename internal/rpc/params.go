package rpc

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Limits on what a request may carry. A chat's frontmatter is small; the
// limits only stop a runaway caller from making the host allocate without end.
const (
	MaxString = 64 << 10 // one string argument (a rule, a mode, a path)
	MaxLines  = 10000    // lines of one frontmatter
	MaxText   = 4 << 20  // all lines together
	MaxRules  = 200      // rules in one edit
)

// ErrBadRequest is wrapped by every error about a request's arguments.
var ErrBadRequest = errors.New("bad request")

func badRequest(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, a...))
}

// params is one request's argument map, decoded by msgpack into plain values.
type params map[string]any

// paramsFrom takes the request's arguments: none, or one map.
func paramsFrom(method string, args []any) (params, error) {
	switch len(args) {
	case 0:
		return params{}, nil
	case 1:
	default:
		return nil, badRequest("%s takes one argument (a map), got %d", method, len(args))
	}
	switch a := args[0].(type) {
	case nil:
		return params{}, nil
	case map[string]any:
		return params(a), nil
	case []any:
		// Lua encodes an empty table as an empty array.
		if len(a) == 0 {
			return params{}, nil
		}
	}
	return nil, badRequest("%s takes a map argument, got %s", method, typeName(args[0]))
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "nil"
	case string, []byte:
		return "string"
	case bool:
		return "boolean"
	case int64, uint64, int, float64, float32:
		return "number"
	case []any:
		return "list"
	case map[string]any:
		return "map"
	}
	return fmt.Sprintf("%T", v)
}

func asString(key string, v any) (string, error) {
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return "", badRequest("%s must be a string, got %s", key, typeName(v))
	}
	if len(s) > MaxString {
		return "", badRequest("%s is too long (%d bytes, at most %d)", key, len(s), MaxString)
	}
	return s, nil
}

// str returns the string under key; required says whether it may be absent.
func (p params) str(key string, required bool) (string, error) {
	v, ok := p[key]
	if !ok || v == nil {
		if required {
			return "", badRequest("%s is required", key)
		}
		return "", nil
	}
	return asString(key, v)
}

// strs returns the list of strings under key.
func (p params) strs(key string, required bool, max int) ([]string, error) {
	v, ok := p[key]
	if !ok || v == nil {
		if required {
			return nil, badRequest("%s is required", key)
		}
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, badRequest("%s must be a list of strings, got %s", key, typeName(v))
	}
	if len(list) > max {
		return nil, badRequest("%s has too many entries (%d, at most %d)", key, len(list), max)
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		s, err := asString(fmt.Sprintf("%s[%d]", key, i+1), x)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// lines returns the buffer lines under "lines", bounded in count and size.
func (p params) lines() ([]string, error) {
	ls, err := p.strs("lines", true, MaxLines)
	if err != nil {
		return nil, err
	}
	total := 0
	for _, l := range ls {
		total += len(l) + 1
	}
	if total > MaxText {
		return nil, badRequest("lines are too long (%d bytes, at most %d)", total, MaxText)
	}
	return ls, nil
}

// int returns a non-negative integer under key (0 when absent).
// optBool is the boolean under key; set is false when it is absent.
func (p params) optBool(key string) (v, set bool, err error) {
	x, ok := p[key]
	if !ok || x == nil {
		return false, false, nil
	}
	b, ok := x.(bool)
	if !ok {
		return false, false, badRequest("%s must be a boolean, got %s", key, typeName(x))
	}
	return b, true, nil
}

func (p params) int(key string, max int) (int, error) {
	v, ok := p[key]
	if !ok || v == nil {
		return 0, nil
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case uint64:
		if x > uint64(max) {
			return 0, badRequest("%s must be at most %d", key, max)
		}
		n = int64(x)
	case int:
		n = int64(x)
	case float64:
		if x != float64(int64(x)) {
			return 0, badRequest("%s must be a whole number, got %v", key, x)
		}
		n = int64(x)
	default:
		return 0, badRequest("%s must be a number, got %s", key, typeName(v))
	}
	if n < 0 || n > int64(max) {
		return 0, badRequest("%s must be between 0 and %d, got %d", key, max, n)
	}
	return int(n), nil
}

// duration returns a Go duration string ("24h", "30m") or a day count ("7d").
func (p params) duration(key string) (time.Duration, error) {
	s, err := p.str(key, false)
	if err != nil || s == "" {
		return 0, err
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		var n int
		if _, err := fmt.Sscanf(d, "%d", &n); err == nil && n >= 0 && fmt.Sprint(n) == d {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	}
	dur, err := time.ParseDuration(s)
	if err != nil || dur < 0 {
		return 0, badRequest("%s must be a duration like 24h, 30m or 7d, got %q", key, s)
	}
	return dur, nil
}
