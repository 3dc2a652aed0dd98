package selfexe

import (
	"reflect"
	"testing"
)

func TestPair(t *testing.T) {
	cases := []struct {
		exe  string
		want []string
	}{
		{"/p/bin/vibing-agent", []string{"/p/bin/vibing-agent", "/p/bin/vibing-agent-full", "/p/bin/vibing-agent-otel"}},
		{"/p/bin/vibing-agent-full", []string{"/p/bin/vibing-agent-full", "/p/bin/vibing-agent", "/p/bin/vibing-agent-otel"}},
		{"/p/bin/vibing-agent-otel", []string{"/p/bin/vibing-agent-otel", "/p/bin/vibing-agent", "/p/bin/vibing-agent-full"}},
		{"/tmp/go-build1/session.test", []string{"/tmp/go-build1/session.test"}},
		{"/p/bin/vibing-agent-fullx", []string{"/p/bin/vibing-agent-fullx"}},
		{"", nil},
	}
	for _, c := range cases {
		if got := Pair(c.exe); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Pair(%q) = %q, want %q", c.exe, got, c.want)
		}
	}
}
