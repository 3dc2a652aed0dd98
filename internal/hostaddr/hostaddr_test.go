package hostaddr

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"testing"
)

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

// TestNAT64Twin holds NAT64, which a rule works out once, to EmbeddedIPv4,
// which the rule once asked of every host: for every canonical host h and
// IPv4 host v4, EmbeddedIPv4(h) == v4 exactly when h == NAT64(v4).
func TestNAT64Twin(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 64))
	v4s := []string{"0.0.0.0", "0.0.0.1", "127.0.0.1", "169.254.169.254", "10.0.0.1", "255.255.255.255", "1.0.0.0"}
	for range 300 {
		v4s = append(v4s, netip.AddrFrom4([4]byte{byte(rng.IntN(256)), byte(rng.IntN(3)), byte(rng.IntN(256)), byte(rng.IntN(2))}).String())
	}
	var hosts []string
	add := func(raw string) {
		if h, err := NormHost(raw); err == nil {
			hosts = append(hosts, h)
		}
	}
	for _, v4 := range v4s {
		a := netip.MustParseAddr(v4).As4()
		add(v4)
		add(fmt.Sprintf("[64:ff9b::%s]", v4))                                                                   // dotted tail
		add(fmt.Sprintf("[64:ff9b:0:0:0:0:%x:%x]", uint16(a[0])<<8|uint16(a[1]), uint16(a[2])<<8|uint16(a[3]))) // written out
		add(fmt.Sprintf("[0064:FF9B::%02x%02x:%02x%02x]", a[0], a[1], a[2], a[3]))                              // leading zeros, upper case
		add(fmt.Sprintf("[64:ff9b:1::%s]", v4))                                                                 // the local-use prefix: no NAT64
		add(fmt.Sprintf("[::ffff:%s]", v4))                                                                     // mapped: is the IPv4 host itself
		add(fmt.Sprintf("[64:ff9a::%s]", v4))
	}
	for _, h := range []string{"[::1]", "example.com", "[64:ff9b::]", "[64:ff9b::1:0:0]", "[2001:db8::1]", "xn--bcher-kva.example"} {
		add(h)
	}
	n, hits := 0, 0
	for _, v4 := range v4s {
		rule := NAT64(v4)
		if rule == "" {
			t.Fatalf("NAT64(%q) is empty", v4)
		}
		for _, h := range hosts {
			n++
			slow, fast := EmbeddedIPv4(h) == v4, h == rule
			if slow {
				hits++
			}
			if slow != fast {
				t.Errorf("host %q, IPv4 %q: EmbeddedIPv4 says %v, NAT64 (%q) says %v", h, v4, slow, rule, fast)
			}
		}
	}
	t.Logf("%d pairs, %d reach their IPv4 address through NAT64", n, hits)
	if hits < len(v4s) {
		t.Errorf("only %d of %d pairs reach their IPv4 address through NAT64: the table tests too little", hits, n)
	}
	for _, bad := range []string{"", "[::1]", "example.com", "1.2.3"} {
		if got := NAT64(bad); got != "" {
			t.Errorf("NAT64(%q) = %q, want \"\"", bad, got)
		}
	}
}
