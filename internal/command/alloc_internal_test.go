package command

import "testing"

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
