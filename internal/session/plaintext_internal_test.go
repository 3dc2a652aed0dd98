package session

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPlainTextTwin holds plainText, which lets short leave a line as it
// is, to what it stands for: an ASCII text that strings.Fields and a join
// by single spaces give back unchanged. Texts drawn of words, every kind
// of space, control bytes and bytes past ASCII; both answers occur.
func TestPlainTextTwin(t *testing.T) {
	rng := rand.New(rand.NewPCG(612, 7))
	parts := []string{"npm", "test", "&&", "|", "x", " ", "  ", "\t", "\n", "\v", "\f", "\r", "\x00", "\x01", "\x7f",
		"é", "\u00a0", "\u0085", "\xff", "~", "!"}
	plain, other := 0, 0
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for n := rng.IntN(7); n >= 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		ascii := true
		for j := 0; j < len(s); j++ {
			ascii = ascii && s[j] < 0x80
		}
		want := ascii && strings.Join(strings.Fields(s), " ") == s
		if got := plainText(s); got != want {
			t.Fatalf("plainText(%q) = %v, want %v", s, got, want)
		}
		if want {
			plain++
		} else {
			other++
		}
	}
	if plain == 0 || other == 0 {
		t.Errorf("%d plain and %d other texts: the draws must hold both", plain, other)
	}
}
