package e2e

import (
	"strings"
	"testing"

	"vibing/internal/fakeapi"
)

// On a machine where bubblewrap cannot start (not installed, or user
// namespaces off: a bwrap that fails), sandbox = "on" refuses to start the
// CLI with one sentence that says why and what to do, and "auto" runs the
// turn with a notice in the chat.
func TestSandboxUnavailable(t *testing.T) {
	for _, bw := range []struct{ name, bin, why string }{
		{"not installed", "/nonexistent/bwrap", "bwrap is not installed"},
		{"fails to start", "/bin/false", "user namespaces may be off"},
	} {
		t.Run(bw.name+", on", func(t *testing.T) {
			t.Setenv("VIBING_BWRAP", bw.bin)
			w := newWorld(t, "", "sandbox: \"on\"\n", fakeapi.Turn{Text: "done"})
			res := w.run(nil)
			if res.code == 0 {
				t.Fatalf("run started without the sandbox: events %v", res.types())
			}
			errs := res.all("error")
			if len(errs) != 1 || !strings.Contains(errs[0].Message, `sandbox = "on" but bubblewrap cannot start here`) ||
				!strings.Contains(errs[0].Message, bw.why) || !strings.Contains(errs[0].Message, `set sandbox = "auto"`) || strings.Count(errs[0].Message, "\n") > 0 {
				t.Errorf("error events %+v, want one line naming why", errs)
			}
			if n := len(w.api.Requests()); n != 0 {
				t.Errorf("the CLI reached the API %d times", n)
			}
		})
		t.Run(bw.name+", auto", func(t *testing.T) {
			t.Setenv("VIBING_BWRAP", bw.bin)
			w := newWorld(t, "", "sandbox: auto\n", fakeapi.Turn{Text: "done"})
			res := w.run(nil)
			if res.code != 0 || len(res.all("result")) != 1 {
				t.Fatalf("run: exit %d, events %v, stderr %s", res.code, res.types(), res.stderr)
			}
			notices := res.all("notice")
			if len(notices) == 0 || !strings.Contains(notices[0].Message, "the sandbox is off") || !strings.Contains(notices[0].Message, bw.why) {
				t.Errorf("notices %+v, want one saying the sandbox is off and why", notices)
			}
		})
	}
}
