package e2e

import (
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// The chat's model: key reaches the API as the request's model: a full name
// as written, an alias as the CLI resolves it.
func TestRealModelReachesAPI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ model, want string }{
		{"team-model-2026", "team-model-2026"},
		{"haiku", "haiku"},
	} {
		t.Run(tt.model, func(t *testing.T) {
			w := newWorld(t, "model: "+tt.model+"\n", "", fakeapi.Turn{Text: "hi"})
			res := w.run(nil)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			main := w.api.MainRequests()
			if len(main) == 0 {
				t.Fatal("the fake API received no main request")
			}
			for _, r := range main {
				if !strings.Contains(r.Model, tt.want) {
					t.Errorf("a main request asked for model %q, want one naming %q", r.Model, tt.want)
				}
			}
		})
	}
}
