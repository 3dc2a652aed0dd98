package matcher_test

import (
	"strings"
	"testing"

	"vibing/internal/command"
	"vibing/internal/matcher"
)

// TestNumericHosts checks that every spelling of an address the WHATWG URL
// parser accepts reads as the canonical address, in URLs and in rules.
func TestNumericHosts(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"169.254.169.254", "169.254.169.254"},
		{"2852039166", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"0XA9FEA9FE", "169.254.169.254"},
		{"0251.0376.0251.0376", "169.254.169.254"},
		{"0xa9.0xfe.0xa9.0xfe", "169.254.169.254"},
		{"169.254.43518", "169.254.169.254"},
		{"169.16689662", "169.254.169.254"},
		{"0xa9.254.0251.254", "169.254.169.254"},
		{"[::ffff:a9fe:a9fe]", "169.254.169.254"},
		{"[::ffff:169.254.169.254]", "169.254.169.254"},
		{"127.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"127.000.000.001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"00000000000000000127.0.0.1", "87.0.0.1"}, // leading zeros make it octal
		{"127.0.0.1.", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"１２７.０.０.１", "127.0.0.1"}, // full-width digits map to ASCII first
		{"[::1]", "[::1]"},
		{"[0:0:0:0:0:0:0:1]", "[::1]"},
		{"[FE80::1]", "[fe80::1]"},
		{"[2001:db8:0:0:1:0:0:1]", "[2001:db8::1:0:0:1]"},
		{"1.2.3.4a", "1.2.3.4a"}, // the last label is no number: a name
		{"0x1.example", "0x1.example"},
	}
	for _, tt := range tests {
		c := command.Prepare("WebFetch", map[string]any{"url": "http://" + tt.in + "/x"}, testEnv)
		if c.Err != nil || c.Host != tt.want {
			t.Errorf("URL host %q = %q (err %v), want %q", tt.in, c.Host, c.Err, tt.want)
		}
		arg := strings.Trim(tt.in, ".")
		if tt.in == "127.0.0.1." {
			arg = tt.in
		}
		r, err := matcher.ParseRule("WebFetch(" + arg + ")")
		if err != nil {
			t.Errorf("ParseRule(WebFetch(%s)): %v", arg, err)
			continue
		}
		if r.Text != "WebFetch("+tt.want+")" {
			t.Errorf("ParseRule(WebFetch(%s)).Text = %q, want WebFetch(%s)", arg, r.Text, tt.want)
		}
		if !r.Match(c, matcher.AllowList) || !r.Match(c, matcher.DenyList) {
			t.Errorf("WebFetch(%s) does not match the URL http://%s/x", arg, tt.in)
		}
	}
}

// TestBadNumericHosts: a host that ends in a number but is no address fails
// the URL (as in the WHATWG parser), so deny and ask rules fire on it and
// allow rules do not; such a rule is invalid.
func TestBadNumericHosts(t *testing.T) {
	t.Parallel()
	deny := mustRule(t, "WebFetch(evil.com)")
	allow := mustRule(t, "WebFetch(*.example.org)")
	for _, h := range []string{
		"1.2.3.4.5", "256.1.1.1", "1.256.1.1", "1.2.3.256", "1.2.65536", "1.16777216", "4294967296",
		"08.1.1.1", "0x1g", "a.0x1g", "1..1", "0xg.1", "99999999999999999999999999",
		"[::1", "[1.2.3.4]", "[fe80::1%25eth0]", "[::ffff:0x7f.1]", "[:::1]",
	} {
		c := command.Prepare("WebFetch", map[string]any{"url": "http://" + h + "/"}, testEnv)
		if c.Err == nil {
			t.Errorf("URL host %q read as %q, want an error", h, c.Host)
		}
		if !deny.Match(c, matcher.DenyList) || !deny.Match(c, matcher.AskList) || allow.Match(c, matcher.AllowList) {
			t.Errorf("URL host %q does not fail closed", h)
		}
		if r, err := matcher.ParseRule("WebFetch(" + strings.ReplaceAll(h, "%25", "%") + ")"); err == nil {
			t.Errorf("ParseRule(WebFetch(%s)) = %q, want an error", h, r.Text)
		}
	}
	for _, u := range []string{"http://::1/", "http://fe80::1/x"} {
		if c := command.Prepare("WebFetch", map[string]any{"url": u}, testEnv); c.Err == nil {
			t.Errorf("URL %q read as host %q, want an error (IPv6 stands in brackets)", u, c.Host)
		}
	}
}

func TestIPRules(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, text string }{
		{"WebFetch(::1)", "WebFetch([::1])"},
		{"WebFetch([::1])", "WebFetch([::1])"},
		{"WebFetch(fe80::1)", "WebFetch([fe80::1])"},
		{"WebFetch(domain:[::1])", "WebFetch([::1])"},
		{"WebFetch(::ffff:127.0.0.1)", "WebFetch(127.0.0.1)"},
		{"WebFetch(0x7f000001)", "WebFetch(127.0.0.1)"},
	}
	for _, tt := range tests {
		if r, err := matcher.ParseRule(tt.in); err != nil || r.Text != tt.text {
			t.Errorf("ParseRule(%q) = %v (err %v), want %q", tt.in, r, err, tt.text)
		}
	}
	for _, bad := range []string{"WebFetch([::1]:443)", "WebFetch(*.127.0.0.1)", "WebFetch(*.[::1])", "WebFetch(fe80::1%eth0)", "WebFetch(1.2.3.4:80)", "WebFetch([evil.com])"} {
		if r, err := matcher.ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) = %q, want an error", bad, r.Text)
		}
	}
	// NAT64 reaches the embedded IPv4 address: deny and ask see it, allow does not.
	c := command.Prepare("WebFetch", map[string]any{"url": "http://[64:ff9b::a9fe:a9fe]/"}, testEnv)
	r := mustRule(t, "WebFetch(169.254.169.254)")
	if !r.Match(c, matcher.DenyList) || !r.Match(c, matcher.AskList) || r.Match(c, matcher.AllowList) {
		t.Errorf("WebFetch(169.254.169.254) on %s: deny %v ask %v allow %v, want true true false", c.Host,
			r.Match(c, matcher.DenyList), r.Match(c, matcher.AskList), r.Match(c, matcher.AllowList))
	}
}
