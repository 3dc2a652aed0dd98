package cowmap

import (
	"strconv"
	"sync"
	"testing"
)

func TestLoadOrStore(t *testing.T) {
	var m Map[int]
	if _, ok := m.Load("a"); ok {
		t.Fatal("an empty map has a")
	}
	cases := []struct {
		key      string
		v, want  int
		wantKept bool
	}{
		{"a", 1, 1, true},
		{"a", 2, 1, true}, // the first value stays
		{"b", 3, 3, true},
		{"c", 4, 4, false}, // full at 2 keys: not kept
	}
	for _, c := range cases {
		got, kept := m.LoadOrStore(c.key, c.v, 2)
		if got != c.want || kept != c.wantKept {
			t.Errorf("LoadOrStore(%s, %d) = %d, %v; want %d, %v", c.key, c.v, got, kept, c.want, c.wantKept)
		}
	}
	if _, ok := m.Load("c"); ok {
		t.Error("a key past max was kept")
	}
}

func TestConcurrent(t *testing.T) {
	var m Map[int]
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				k := strconv.Itoa(i % 20)
				m.LoadOrStore(k, g, 1000)
				if _, ok := m.Load(k); !ok {
					t.Errorf("%s stored but not found", k)
				}
			}
		}()
	}
	wg.Wait()
}

// TestLoadBytes: LoadBytes finds what Load finds, without a string made
// for the key.
func TestLoadBytes(t *testing.T) {
	var m Map[int]
	if _, ok := m.LoadBytes([]byte("a")); ok {
		t.Fatal("an empty map has a")
	}
	m.LoadOrStore("a", 1, 10)
	m.LoadOrStore("\x01git\x01npm", 2, 10)
	for _, c := range []struct {
		key  string
		want int
		ok   bool
	}{{"a", 1, true}, {"\x01git\x01npm", 2, true}, {"\x01git", 0, false}, {"", 0, false}} {
		b := []byte(c.key)
		if got, ok := m.LoadBytes(b); got != c.want || ok != c.ok {
			t.Errorf("LoadBytes(%q) = %d, %v, want %d, %v", c.key, got, ok, c.want, c.ok)
		}
	}
	b := []byte("\x01git\x01npm")
	if n := testing.AllocsPerRun(100, func() { m.LoadBytes(b) }); n != 0 {
		t.Errorf("LoadBytes allocates %v times, want 0", n)
	}
}
