package fakeapi

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestChunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    string
		n    int
		want int // pieces
	}{
		{"", 4, 1}, {"abc", 0, 1}, {"abcdefgh", 3, 3}, {"éééé", 3, 4}, {"😀😀", 2, 2},
	}
	for _, tt := range tests {
		got := chunks(tt.s, tt.n)
		if len(got) != tt.want || strings.Join(got, "") != tt.s {
			t.Errorf("chunks(%q, %d) = %q, want %d pieces joining to it", tt.s, tt.n, got, tt.want)
		}
		for _, p := range got {
			if !utf8.ValidString(p) {
				t.Errorf("chunks(%q, %d): piece %q splits a character", tt.s, tt.n, p)
			}
		}
	}
}

func TestOverload(t *testing.T) {
	t.Parallel()
	s := New(Turn{Text: "hi"})
	defer s.Close()
	s.Overload(2)
	body := `{"model":"m","stream":false,"tools":[{"name":"Bash"}]}`
	var codes []int
	for i := 0; i < 3; i++ {
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
		if resp.StatusCode == 529 && !strings.Contains(string(data), "overloaded_error") {
			t.Errorf("529 body %s, want an overloaded_error", data)
		}
	}
	if codes[0] != 529 || codes[1] != 529 || codes[2] != 200 || s.Refused() != 2 || s.TurnsServed() != 1 {
		t.Errorf("codes %v, refused %d, turns %d; want 529 529 200, 2 refused, the turn served once", codes, s.Refused(), s.TurnsServed())
	}
}
