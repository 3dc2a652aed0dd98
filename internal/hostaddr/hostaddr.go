// Package hostaddr brings a host name or address to the one spelling rules
// and calls are compared in: IDNA names lower-cased and mapped, numeric
// IPv4 forms (decimal, hex, octal, short) as dotted quads, IPv6 literals
// canonical, and the IPv4 address an IPv6 one embeds.
package hostaddr

import (
	"fmt"
	"net/netip"
	"strings"

	"golang.org/x/net/idna"
)

// Numeric hosts are read as the WHATWG URL parser (and so the agent's
// fetch, and curl, and the system's inet_aton) reads them: "2852039166",
// "0xa9fea9fe", "0251.0376.0251.0376", "169.254.43518" and
// "[::ffff:a9fe:a9fe]" are all 169.254.169.254. A rule and a URL are both
// brought to the one canonical spelling before they are compared, so a
// deny of the dotted address cannot be walked around by another spelling.

// ipv4Overflow is a value no part of an IPv4 address can reach; parsed
// numbers saturate there instead of wrapping.
const ipv4Overflow = 1 << 33

// endsInNumber reports whether the host's last label is a number (all
// digits, or 0x followed by hex digits): WHATWG then reads the whole host as
// an IPv4 address, and fails the URL when that does not work. h has no
// trailing dot.
func endsInNumber(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if last == "" {
		return false
	}
	if allDigits(last, 10) {
		return true
	}
	return len(last) >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X') && allDigits(last[2:], 16)
}

// looksHex reports whether the host's last label starts like a hexadecimal
// number (0x1g): WHATWG reads such a host as a name, but it is too close to
// an address to be worth the doubt, so it is refused.
func looksHex(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	return len(last) > 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')
}

func allDigits(s string, base uint64) bool {
	for i := 0; i < len(s); i++ {
		if _, ok := digitValue(s[i], base); !ok {
			return false
		}
	}
	return true
}

func digitValue(c byte, base uint64) (uint64, bool) {
	var d uint64
	switch {
	case c >= '0' && c <= '9':
		d = uint64(c - '0')
	case c >= 'a' && c <= 'f':
		d = uint64(c-'a') + 10
	case c >= 'A' && c <= 'F':
		d = uint64(c-'A') + 10
	default:
		return 0, false
	}
	return d, d < base
}

// ipv4Number reads one part of an IPv4 host: decimal, 0x-hexadecimal or
// 0-octal, of any length (it saturates at ipv4Overflow).
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := uint64(10)
	switch {
	case len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'):
		s, base = s[2:], 16
	case len(s) >= 2 && s[0] == '0':
		s, base = s[1:], 8
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i], base)
		if !ok {
			return 0, false
		}
		n = min(n*base+d, ipv4Overflow)
	}
	return n, true
}

// parseIPv4 is the WHATWG IPv4 parser: up to four parts split on dots, each
// a number, the last filling the bytes the others leave. h has no trailing
// dot (normHost drops it, as the parser drops one empty last part).
func parseIPv4(h string) (netip.Addr, error) {
	parts := strings.Split(h, ".")
	if len(parts) > 4 {
		return netip.Addr{}, fmt.Errorf("%q ends in a number but has more than four parts, so it is no IPv4 address", h)
	}
	var nums [4]uint64
	for i, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return netip.Addr{}, fmt.Errorf("%q ends in a number but its part %q is not one, so it is no IPv4 address", h, p)
		}
		nums[i] = n
	}
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		if nums[i] > 255 {
			return netip.Addr{}, fmt.Errorf("%q is no IPv4 address: the part %q is larger than 255", h, parts[i])
		}
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, fmt.Errorf("%q is no IPv4 address: the part %q is too large", h, parts[last])
	}
	v := nums[last]
	for i := 0; i < last; i++ {
		v += nums[i] << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), nil
}

// normIPv6 reads an IPv6 host, with or without its brackets, to its
// canonical form "[::1]"; an IPv4-mapped address (::ffff:a.b.c.d) is that
// IPv4 address, which is where a connection to it goes.
func normIPv6(h string) (string, error) {
	in := h
	if strings.HasPrefix(h, "[") {
		if !strings.HasSuffix(h, "]") {
			return "", fmt.Errorf("%q opens '[' without closing it", h)
		}
		in = h[1 : len(h)-1]
	}
	if strings.ContainsRune(in, '%') {
		return "", fmt.Errorf("%q names an IPv6 zone, which a URL cannot", h)
	}
	a, err := netip.ParseAddr(in)
	if err != nil || !a.Is6() {
		return "", fmt.Errorf("%q is not an IPv6 address", h)
	}
	if a.Is4In6() {
		return a.Unmap().String(), nil
	}
	return "[" + a.String() + "]", nil
}

// IsIPv6Literal reports whether a rule argument is an IPv6 address, with
// or without brackets (host:port is not).
func IsIPv6Literal(h string) bool {
	if strings.HasPrefix(h, "[") && strings.HasSuffix(h, "]") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Is6()
}

// nat64Prefix is the well-known NAT64 prefix: 64:ff9b::a.b.c.d reaches
// a.b.c.d through a NAT64 gateway.
var nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")

// EmbeddedIPv4 returns the IPv4 address a canonical IPv6 host reaches
// through NAT64 ("" for any other host); deny and ask rules for that IPv4
// address fire on it too.
func EmbeddedIPv4(host string) string {
	if !strings.HasPrefix(host, "[64:ff9b::") {
		return ""
	}
	a, err := netip.ParseAddr(host[1 : len(host)-1])
	if err != nil || !nat64Prefix.Contains(a) {
		return ""
	}
	b := a.As16()
	return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}).String()
}

// NAT64 returns the canonical host (NormHost's spelling) of the NAT64
// address that reaches the IPv4 host v4 ("" when v4 is no IPv4 address):
// for a canonical host h, EmbeddedIPv4(h) == v4 exactly when h == NAT64(v4),
// so a rule for v4 works this out once, when it is read.
func NAT64(v4 string) string {
	a, err := netip.ParseAddr(v4)
	if err != nil || !a.Is4() {
		return ""
	}
	b := nat64Prefix.Addr().As16()
	copy(b[12:], a.AsSlice())
	return "[" + netip.AddrFrom16(b).String() + "]"
}

// IsIPHost reports whether a canonical host is an IP address.
func IsIPHost(h string) bool {
	return strings.HasPrefix(h, "[") || (h != "" && endsInNumber(h))
}

// NormHost brings a host to the one spelling rules and URLs are compared
// in: lower-cased, trailing dot dropped, IDN converted to punycode, and an
// IP address in its canonical form, read as the WHATWG URL parser reads it
// (2852039166, 0xa9fea9fe and 127.1 are 169.254.169.254 and 127.0.0.1;
// [::FFFF:a9fe:a9fe] is 169.254.169.254; [0:0::1] is [::1]). A host that
// ends in a number but is no IPv4 address (1.2.3.4.5) is an error, as it is
// for that parser, and so is one whose last label starts like a hexadecimal
// number (0x1g).
func NormHost(h string) (string, error) {
	h = strings.ToLower(h)
	if strings.HasPrefix(h, "[") || strings.ContainsRune(h, ':') {
		return normIPv6(h)
	}
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", fmt.Errorf("empty host")
	}
	if strings.HasPrefix(h, ".") || strings.Contains(h, "..") {
		return "", fmt.Errorf("empty label in %q", h)
	}
	a, err := idnaProfile.ToASCII(h)
	if err != nil {
		return "", err
	}
	// Mapping can produce dots of its own (full-width dots, ...): check again.
	a = strings.TrimSuffix(strings.ToLower(a), ".")
	if a == "" || strings.HasPrefix(a, ".") || strings.Contains(a, "..") {
		return "", fmt.Errorf("empty label in %q", h)
	}
	if i := strings.IndexFunc(a, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_')
	}); i >= 0 {
		return "", fmt.Errorf("%q maps to %q, which holds a character no host name has", h, a)
	}
	// Some labels the mapping accepts turn into xn-- labels it rejects:
	// such a name would not read back as the same host, so it is refused.
	if a != h {
		if b, err := idnaProfile.ToASCII(a); err != nil || strings.TrimSuffix(strings.ToLower(b), ".") != a {
			return "", fmt.Errorf("%q does not read back as the same ASCII name", h)
		}
	}
	if endsInNumber(a) {
		ip, err := parseIPv4(a)
		if err != nil {
			return "", err
		}
		return ip.String(), nil
	}
	if looksHex(a) {
		return "", fmt.Errorf("%q ends in something that looks like a hexadecimal number but is not one", h)
	}
	return a, nil
}

// idnaProfile converts hosts to their ASCII (punycode) form for comparison.
var idnaProfile = idna.New(idna.MapForLookup(), idna.Transitional(false), idna.StrictDomainName(false))
