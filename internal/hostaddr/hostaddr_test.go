package hostaddr

import "testing"

// TestNormHost: every spelling of one host comes to one; what a URL parser
// would refuse is an error.
func TestNormHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2852039166", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"0251.0376.0251.0376", "169.254.169.254"},
		{"169.254.43518", "169.254.169.254"},
		{"127.1", "127.0.0.1"},
		{"[::FFFF:a9fe:a9fe]", "169.254.169.254"},
		{"[0:0::1]", "[::1]"},
		{"Example.COM.", "example.com"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"1.2.3.4.5", ""},
		{"0x1g", ""},
		{"a..b", ""},
		{"", ""},
	} {
		got, err := NormHost(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("NormHost(%q) = %q, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// TestEmbeddedIPv4: a NAT64 address reaches the IPv4 address it embeds.
func TestEmbeddedIPv4(t *testing.T) {
	for in, want := range map[string]string{
		"[64:ff9b::a9fe:a9fe]": "169.254.169.254",
		"[64:ff9b::7f00:1]":    "127.0.0.1",
		"[::1]":                "",
		"example.com":          "",
	} {
		if got := EmbeddedIPv4(in); got != want {
			t.Errorf("EmbeddedIPv4(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"[::1]": true, "::1": true, "10.0.0.1": false, "[::1]:80": false, "host:80": false} {
		if got := IsIPv6Literal(in); got != want {
			t.Errorf("IsIPv6Literal(%q) = %v, want %v", in, got, want)
		}
	}
}
