// Package cowmap is a map read without a lock and replaced whole on each
// addition, for the few keys looked up on every decision (a tool's rule
// set, its cuts, the resolved working folder): a look-up costs a plain map
// access, which a sync.Map does not match.
package cowmap

import (
	"sync"
	"sync/atomic"
)

// Map is a copy-on-write map from strings to V; the zero Map is empty and
// ready for use. It is safe for concurrent use.
type Map[V any] struct {
	mu sync.Mutex // serialises the replacements
	m  atomic.Pointer[map[string]V]
}

// Load returns the value under key.
func (c *Map[V]) Load(key string) (V, bool) {
	if m := c.m.Load(); m != nil {
		v, ok := (*m)[key]
		return v, ok
	}
	var zero V
	return zero, false
}

// LoadBytes is Load of the key spelled in b, without making a string of it.
func (c *Map[V]) LoadBytes(b []byte) (V, bool) {
	if m := c.m.Load(); m != nil {
		v, ok := (*m)[string(b)]
		return v, ok
	}
	var zero V
	return zero, false
}

// LoadOrStore keeps v under key unless a value is there already, and
// returns the value kept and true; when the map already holds max keys it
// keeps nothing and returns v and false.
func (c *Map[V]) LoadOrStore(key string, v V, max int) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	n := 0
	if old != nil {
		if have, ok := (*old)[key]; ok {
			return have, true
		}
		n = len(*old)
	}
	if n >= max {
		return v, false
	}
	next := make(map[string]V, n+1)
	if old != nil {
		for k, x := range *old {
			next[k] = x
		}
	}
	next[key] = v
	c.m.Store(&next)
	return v, true
}
