package matcher_test

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"vibing/internal/matcher"
)

// TestHostsCorpus runs testdata/hosts.txt, written in the format of
// bypass.txt: WebFetch URLs and Bash lines against WebFetch domain rules.
func TestHostsCorpus(t *testing.T) {
	t.Parallel()
	tmp, env := bypassFixture(t)
	f, err := os.Open("testdata/hosts.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if len(fields) != 5 {
			t.Fatalf("hosts.txt:%d: %d fields, want 5", line, len(fields))
		}
		expect, list, tool := fields[0], parseList(fields[1]), fields[3]
		counts[expect]++
		input := strings.ReplaceAll(unescapeField(fields[4]), "$TMP", tmp)
		call := matcher.Prepare(tool, inputFor(tool, input), env)
		r := mustRule(t, fields[2])
		switch expect {
		case "match", "nomatch":
			got := r.Match(call, list)
			if got != (expect == "match") {
				t.Errorf("hosts.txt:%d: %s rule %q .Match(%s %q) = %v, want %v (call err %v)",
					line, fields[1], fields[2], tool, input, got, !got, call.Err)
			}
			if got && list != matcher.AllowList && strings.EqualFold(tool, "bash") {
				assertDenyStable(t, r, list, input, env)
			}
		default:
			t.Fatalf("hosts.txt:%d: unknown expectation %q", line, expect)
		}
	}
	if counts["match"] < 10 || counts["nomatch"] < 10 {
		t.Errorf("hosts corpus has %d match and %d nomatch cases, want at least 10 of each", counts["match"], counts["nomatch"])
	}
}
