package matcher_test

import (
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// TestHostsCorpus runs testdata/hosts.txt, written in the format of
// bypass.txt: WebFetch URLs and Bash lines against WebFetch domain rules.
func TestHostsCorpus(t *testing.T) {
	t.Parallel()
	tmp, env := bypassFixture(t)
	counts := map[string]int{}
	corpusRows(t, "testdata/hosts.txt", func(line int, fields []string) {
		if len(fields) != 5 {
			t.Fatalf("hosts.txt:%d: %d fields, want 5", line, len(fields))
		}
		expect, list, tool := fields[0], parseList(fields[1]), fields[3]
		counts[expect]++
		input := strings.ReplaceAll(unescapeField(fields[4]), "$TMP", tmp)
		call := command.Prepare(tool, inputFor(tool, input), env)
		r := mustRule(t, fields[2])
		switch expect {
		case "match", "nomatch":
			got := r.Match(call, list)
			if got != (expect == "match") {
				t.Errorf("hosts.txt:%d: %s rule %q .Match(%s %q) = %v, want %v (call err %v, hosts %q, unknown %q)",
					line, fields[1], fields[2], tool, input, got, !got, call.Err, call.Hosts(), call.HostsUnknown())
			}
			if got && list != matcher.AllowList && strings.EqualFold(tool, "bash") {
				assertDenyStable(t, r, list, input, env)
			}
		default:
			t.Fatalf("hosts.txt:%d: unknown expectation %q", line, expect)
		}
	})
	if counts["match"] < 10 || counts["nomatch"] < 10 {
		t.Errorf("hosts corpus has %d match and %d nomatch cases, want at least 10 of each", counts["match"], counts["nomatch"])
	}
}

// TestCallHosts checks the hosts list the approval preview shows.
func TestCallHosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tool, in string
		hosts    string // joined by spaces
		unknown  bool
	}{
		{"WebFetch", "https://API.GitHub.com./x", "api.github.com", false},
		{"WebFetch", "http://0x7f.1/", "127.0.0.1", false},
		{"WebFetch", "http://1.2.3.4.5/", "", true},
		{"Bash", "npm test && git status", "", false},
		{"Bash", "curl -sSL https://a.example/x | jq . && wget -qO- b.example/y", "a.example b.example", false},
		{"Bash", "curl --resolve a.example:443:10.0.0.9 https://a.example/", "10.0.0.9 a.example", false},
		{"Bash", "git clone git@github.com:me/r.git && cd r && git push origin main", "github.com", false},
		{"Bash", "scp -J jump.example a.txt bob@[fe80::1]:/tmp/", "jump.example [fe80::1]", false},
		{"Bash", "nc -zv 10.0.0.1 22 80 443", "10.0.0.1", false},
		{"Bash", "http POST :8080/api a=1", "localhost", false},
		{"Bash", "curl https://a.example/ https://a.example/x", "a.example", false},
		{"Bash", `curl "https://api.github.com/repos/$R"`, "api.github.com", false},
		{"Bash", `curl "$U"`, "", true},
		{"Bash", "echo https://a.example", "", false},
	}
	for _, tt := range tests {
		c := command.Prepare(tt.tool, inputFor(tt.tool, tt.in), testEnv)
		if got := strings.Join(c.Hosts(), " "); got != tt.hosts {
			t.Errorf("%s %q: Hosts() = %q, want %q", tt.tool, tt.in, got, tt.hosts)
		}
		if got := c.HostsUnknown(); (got != "") != tt.unknown {
			t.Errorf("%s %q: HostsUnknown() = %q, want unknown %v", tt.tool, tt.in, got, tt.unknown)
		}
	}
}
