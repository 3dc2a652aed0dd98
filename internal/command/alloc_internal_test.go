package command

import (
	"reflect"
	"testing"
)

// TestNoRareStaysEmpty walks lines that use every rare part of a command
// (braces, redirections, assignments, computed words, xargs) and checks
// that none was written into the shared empty one that more() returns.
func TestNoRareStaysEmpty(t *testing.T) {
	env := Env{Cwd: t.TempDir(), Home: "/home/u"}
	for _, line := range []string{
		"rm -rf {a,b}/x > out.txt 2>&1 < in.txt",
		"FOO=1 GIT_EXTERNAL_DIFF='rm x' git diff",
		"find . -name '*.o' | xargs rm",
		"cat $(ls) | python3 -c 'import os; os.remove(\"x\")'",
		"sudo env X=1 cp {x,y}.txt /tmp/ <<EOF\nhi\nEOF",
		"cmd <<< \"$V\" && echo {1..3}",
	} {
		Prepare("Bash", map[string]any{"command": line}, env)
		if noRare.Outs != nil || noRare.Ins != nil || noRare.stdin != "" || noRare.stdinDoc != nil ||
			noRare.Assigns != nil || noRare.codeVars != nil || noRare.expanded != nil ||
			noRare.expandedArgs != nil || noRare.computed != nil || noRare.Wrappers != nil || noRare.Alts != nil || noRare.Dyn != nil {
			t.Fatalf("after %q the shared empty rare part holds %+v", line, noRare)
		}
	}
}

// TestProgBitsKept holds the walker's kept answers of the program table
// (progBits) to the table: every name of the table and names it lacks,
// looked up in an order that makes the walker forget and ask again,
// and the tables the bits stand in for (readers, metaOnly, inlineOperand).
func TestProgBitsKept(t *testing.T) {
	table := progs.Get()
	names := []string{"", "npm", "git", "grep", "no-such-program", "busybox awk", "awk"}
	for n := range table {
		names = append(names, n)
	}
	var w shellWalker
	for round := 0; round < 3; round++ {
		for i, n := range names {
			for _, m := range []string{n, names[(i*7+round)%len(names)], n} {
				if got, want := w.progBits(m), table[m]; got != want {
					t.Fatalf("progBits(%q) = %b, the table says %b", m, got, want)
				}
			}
		}
	}
	if (*shellWalker)(nil).progBits("git") != table["git"] {
		t.Error("a nil walker does not read the table")
	}
	for n, ok := range readers.Get() {
		if table[n]&progReader != 0 != ok {
			t.Errorf("%q: progReader %v, readers %v", n, table[n]&progReader != 0, ok)
		}
	}
	for n, ok := range metaOnly.Get() {
		if table[n]&progMetaOnly != 0 != ok {
			t.Errorf("%q: progMetaOnly %v, metaOnly %v", n, table[n]&progMetaOnly != 0, ok)
		}
	}
	for n, ok := range inlineOperand {
		if table[n]&progInlineOperand != 0 != ok {
			t.Errorf("%q: progInlineOperand %v, inlineOperand %v", n, table[n]&progInlineOperand != 0, ok)
		}
	}
	for _, n := range []string{"cat", "ls", "stat", "touch", "awk", "gawk", "npm", "zzz"} {
		if readers.Get()[n] != (table[n]&progReader != 0) || metaOnly.Get()[n] != (table[n]&progMetaOnly != 0) || inlineOperand[n] != (table[n]&progInlineOperand != 0) {
			t.Errorf("%q: the program table's bits and the tables they stand in for disagree", n)
		}
	}
}

// TestWrapperBitsAreWrappers holds the program table's wrapper bit, which
// stripWrappersBy reads first, to the wrapper table, and stripWrappersBy to
// stripWrappers on lines of wrappers, non-wrappers and mixes.
func TestWrapperBitsAreWrappers(t *testing.T) {
	for n := range wrappers.Get() {
		if progs.Get()[n]&progWrapper == 0 {
			t.Errorf("%q is a wrapper without the program table's wrapper bit", n)
		}
	}
	var w shellWalker
	for _, words := range [][]string{
		{"sudo", "rm", "-rf", "/"}, {"env", "X=1", "nice", "-n", "5", "git", "push"}, {"npm", "test"},
		{"/usr/bin/sudo", "-u", "x", "ls"}, {"timeout", "5", "xargs", "rm"}, {"env"}, {"sudo", "-i"}, {"grep", "-v", "foo"},
	} {
		a1, m1, x1 := stripWrappers(words)
		a2, m2, x2 := stripWrappersBy(words, &w)
		if !reflect.DeepEqual(a1, a2) || !reflect.DeepEqual(m1, m2) || !reflect.DeepEqual(x1, x2) {
			t.Errorf("%q: stripWrappersBy = %q %q %q, stripWrappers %q %q %q", words, a2, m2, x2, a1, m1, x1)
		}
	}
}
