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
