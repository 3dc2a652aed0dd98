package matcher_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// TestHowMatched holds what a rule that matches says about how it matched:
// the unseen reason, the file of a Bash line, the folder read whole (deny
// list only), the root a search reads below, and the hosts of a host rule
// on a Bash line; nothing for a bare tool, the allow list or a file tool.
// (The rows that do not match hold that Match says so.)
func TestHowMatched(t *testing.T) {
	t.Parallel()
	tmp, env := bypassFixture(t)
	proj := filepath.Join(tmp, "proj")
	bash := func(line string) map[string]any { return map[string]any{"command": line} }
	tests := []struct {
		name  string
		rule  string
		list  matcher.List
		tool  string
		input map[string]any
		want  *matcher.Hit // nil: the rule does not match
		// unseen and hostsUnknown are checked as parts of the reason
		unseen, hostsUnknown string
	}{
		{name: "no match", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("ls src")},
		{name: "no match in the allow list", rule: "Bash(npm:*)", list: matcher.AllowList, tool: "Bash", input: bash("git push")},
		{name: "a file the line names", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("cat .env"),
			want: &matcher.Hit{File: "it names .env"}},
		{name: "a file the line writes", rule: "Edit(src/**)", list: matcher.DenyList, tool: "Bash", input: bash("echo x > src/a.go"),
			want: &matcher.Hit{File: "it writes src/a.go"}},
		{name: "an argument known at run time", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("cat $(cat list)"),
			want: &matcher.Hit{}, unseen: "an argument of cat is only known at run time"},
		{name: "a relative name after a cd known at run time", rule: "Read(secrets/key.pem)", list: matcher.AskList, tool: "Bash", input: bash("cd $D && cat key.pem"),
			want: &matcher.Hit{}, unseen: "is a relative path after a cd to a folder only known at run time"},
		{name: "a command name known at run time", rule: "Bash(rm:*)", list: matcher.DenyList, tool: "Bash", input: bash("$CMD -rf /"),
			want: &matcher.Hit{}, unseen: "run time"},
		{name: "what the line spells out outranks what it hides", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("cat .env $(cat list)"),
			want: &matcher.Hit{File: "it names .env"}},
		{name: "a folder read whole", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("grep -r TODO ."),
			want: &matcher.Hit{File: "it reads all of ., which holds a file the rule names", Folder: "."}},
		{name: "a folder read whole, in the ask list", rule: "Read(.env)", list: matcher.AskList, tool: "Bash", input: bash("grep -r TODO ."),
			want: &matcher.Hit{File: "it reads all of ., which holds a file the rule names"}},
		{name: "a folder whose every file the rule names", rule: "Read(secrets/**)", list: matcher.DenyList, tool: "Bash", input: bash("grep -r x secrets"),
			want: &matcher.Hit{File: "it reads all of secrets, which holds a file the rule names"}},
		{name: "a folder read whole and a file named", rule: "Read(.env)", list: matcher.DenyList, tool: "Bash", input: bash("grep -r TODO . .env"),
			want: &matcher.Hit{File: "it reads all of ., which holds a file the rule names"}},
		{name: "a search below its root", rule: "Read(.env)", list: matcher.DenyList, tool: "Grep", input: map[string]any{"pattern": "x", "path": proj},
			want: &matcher.Hit{Below: proj, Folder: proj}},
		{name: "a search below its root, in the ask list", rule: "Read(.env)", list: matcher.AskList, tool: "Grep", input: map[string]any{"pattern": "x", "path": proj},
			want: &matcher.Hit{Below: proj}},
		{name: "a search of a folder whose every file the rule names", rule: "Read(secrets/*)", list: matcher.DenyList, tool: "Grep", input: map[string]any{"pattern": "x", "path": filepath.Join(proj, "secrets")},
			want: &matcher.Hit{Below: filepath.Join(proj, "secrets")}},
		{name: "a search of the folder the rule names", rule: "Read(secrets)", list: matcher.DenyList, tool: "Grep", input: map[string]any{"pattern": "x", "path": filepath.Join(proj, "secrets")},
			want: &matcher.Hit{}},
		{name: "a host the line names", rule: "WebFetch(evil.com)", list: matcher.DenyList, tool: "Bash", input: bash("curl https://api.evil.com/x https://good.org"),
			want: &matcher.Hit{OnHosts: true, Hosts: []string{"api.evil.com", "good.org"}}},
		{name: "a host known at run time", rule: "WebFetch(evil.com)", list: matcher.DenyList, tool: "Bash", input: bash("curl $URL"),
			want: &matcher.Hit{OnHosts: true, HostUnseen: true}, hostsUnknown: "$URL"},
		{name: "a host named beside one known at run time", rule: "WebFetch(evil.com)", list: matcher.AskList, tool: "Bash", input: bash("curl https://evil.com $URL"),
			want: &matcher.Hit{OnHosts: true, Hosts: []string{"evil.com"}}, hostsUnknown: "$URL"},
		{name: "a host rule on a line that does not parse", rule: "WebFetch(evil.com)", list: matcher.DenyList, tool: "Bash", input: bash("curl 'https://evil.com"),
			want: &matcher.Hit{HostUnseen: true}},
		{name: "a bare tool", rule: "Bash", list: matcher.DenyList, tool: "Bash", input: bash("cat $(cat list)"),
			want: &matcher.Hit{}},
		{name: "the allow list", rule: "Bash(npm:*)", list: matcher.AllowList, tool: "Bash", input: bash("npm test"),
			want: &matcher.Hit{}},
		{name: "a file tool", rule: "Read(.env)", list: matcher.DenyList, tool: "Read", input: map[string]any{"file_path": ".env"},
			want: &matcher.Hit{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mustRule(t, tt.rule)
			c := command.Prepare(tt.tool, tt.input, env)
			if matched := r.Match(c, tt.list); matched != (tt.want != nil) || !matched {
				if matched != (tt.want != nil) {
					t.Fatalf("%s.Match(%v) = %v, want %v", tt.rule, tt.input, matched, !matched)
				}
				return
			}
			got := r.HowMatched(c, tt.list)
			if !strings.Contains(got.Unseen, tt.unseen) || (tt.unseen == "") != (got.Unseen == "") {
				t.Errorf("%s.HowMatched(%v).Unseen = %q, want it to say %q", tt.rule, tt.input, got.Unseen, tt.unseen)
			}
			if !strings.Contains(got.HostsUnknown, tt.hostsUnknown) || (tt.hostsUnknown == "") != (got.HostsUnknown == "") {
				t.Errorf("%s.HowMatched(%v).HostsUnknown = %q, want it to say %q", tt.rule, tt.input, got.HostsUnknown, tt.hostsUnknown)
			}
			g, w := *got, *tt.want
			g.Unseen, g.HostsUnknown = "", ""
			if g.File != w.File || g.Folder != w.Folder || g.Below != w.Below || g.OnHosts != w.OnHosts ||
				g.HostUnseen != w.HostUnseen || !slices.Equal(g.Hosts, w.Hosts) {
				t.Errorf("%s.HowMatched(%v) = %+v, want %+v", tt.rule, tt.input, g, w)
			}
			if got.Indirect() != (got.Unseen != "" || got.Folder != "") {
				t.Errorf("%s.HowMatched(%v).Indirect() = %v with Unseen %q, Folder %q", tt.rule, tt.input, got.Indirect(), got.Unseen, got.Folder)
			}
		})
	}
}
