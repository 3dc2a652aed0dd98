package command

import "sync"

// table is a lookup table made on first use. Go builds a package's map
// variables when the program starts, before main: every check or hook
// process, which decides one call, would pay for all the tables of this
// package, most of which its call never consults (SPEC §9: a process that
// starts within 1.5x of a hello-world program).
type Table[M any] struct {
	once sync.Once
	Make func() M
	m    M
}

// get returns the table, making it the first time.
func (t *Table[M]) Get() M {
	t.once.Do(t.build)
	return t.m
}

func (t *Table[M]) build() { t.m = t.Make() }
