package otlp

import "testing"

func TestLogsURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://c:4318":             "http://c:4318/v1/logs",
		"http://c:4318/":            "http://c:4318/v1/logs",
		"https://c/otlp/v1/logs":    "https://c/otlp/v1/logs",
		"https://c:443/custom/path": "https://c:443/custom/path",
	} {
		if got := LogsURL(in); got != want {
			t.Errorf("LogsURL(%q) = %q, want %q", in, got, want)
		}
	}
}
