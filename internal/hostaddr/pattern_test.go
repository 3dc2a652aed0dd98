package hostaddr

import "testing"

// TestPatternMatches holds a host rule's pattern to its reading: exact in
// the allow list, the domain and its subdomains in deny and ask, *.domain
// its subdomains everywhere, an IP address itself and, outside the allow
// list, its NAT64 address; never a look-alike.
func TestPatternMatches(t *testing.T) {
	tests := []struct {
		rule  string
		wild  bool
		host  string
		exact bool // the allow list's reading
		want  bool
	}{
		// everyday: what a rule names
		{"github.com", false, "github.com", true, true},
		{"github.com", false, "github.com", false, true},
		{"example.org", true, "api.example.org", true, true},
		{"example.org", true, "example.org", true, true},
		{"10.0.0.1", false, "10.0.0.1", true, true},
		{"[::1]", false, "[::1]", false, true},
		// deny and ask cover subdomains; allow does not widen
		{"evil.com", false, "api.evil.com", false, true},
		{"evil.com", false, "a.b.evil.com", false, true},
		{"github.com", false, "api.github.com", true, false},
		// attacks: look-alikes and suffixes that are not subdomains
		{"evil.com", false, "notevil.com", false, false},
		{"evil.com", false, "evil.com.attacker.net", false, false},
		{"evil.com", true, "xevil.com", true, false},
		{"evil.com", false, "", false, false},
		// an IP address has no subdomains; its NAT64 address reaches it
		{"10.0.0.1", false, "1.10.0.0.1", false, false},
		{"169.254.169.254", false, "[64:ff9b::a9fe:a9fe]", false, true},
		{"169.254.169.254", false, "[64:ff9b::a9fe:a9fe]", true, false},
		{"169.254.169.254", false, "[64:ff9b:1::a9fe:a9fe]", false, false},
	}
	for _, tt := range tests {
		h, err := NormHost(tt.rule)
		if err != nil {
			t.Fatalf("NormHost(%q): %v", tt.rule, err)
		}
		p := NewPattern(h, tt.wild)
		if got := p.Matches(tt.host, tt.exact); got != tt.want {
			t.Errorf("pattern %q (wild %v) Matches(%q, exact %v) = %v, want %v", tt.rule, tt.wild, tt.host, tt.exact, got, tt.want)
		}
		if got := p.MatchesAny([]string{"unrelated.example", tt.host}, tt.exact); got != tt.want {
			t.Errorf("pattern %q MatchesAny(.., %q) = %v, want %v", tt.rule, tt.host, got, tt.want)
		}
	}
}
