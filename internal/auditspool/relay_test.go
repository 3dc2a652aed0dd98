package auditspool_test

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"vibing/internal/auditspool"
)

// spooled reads the entries of a spool without importing it.
func spooled(t *testing.T, spool string) []auditspool.Entry {
	t.Helper()
	var got []auditspool.Entry
	if _, err := os.Stat(spool); err != nil {
		return nil
	}
	copyTo := spool + ".copy"
	data, _ := os.ReadFile(spool)
	if err := os.WriteFile(copyTo, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := auditspool.Import(copyTo, func(es []auditspool.Entry) error { got = append(got, es...); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

// Write goes through the relay only when the relay is outside the hook's
// sandbox; anything else (no relay there, one the hook can see: served
// from inside the sandbox, or no sandbox at all) falls back to the spool,
// and a relay or spool that fails is an error.
func TestWriteThroughRelay(t *testing.T) {
	tests := []struct {
		name      string
		outside   bool   // the relay passes the outside check
		sock      string // "relay", "missing" or ""
		relayBad  bool   // the relay's own spool cannot be written
		hookBad   bool   // the hook's spool cannot be written
		wantRelay int    // rows in the relay's spool
		wantHook  int    // rows in the hook's own spool
		wantErr   string
	}{
		{name: "relay outside the sandbox", outside: true, sock: "relay", wantRelay: 1},
		{name: "relay the hook can see: its own spool", outside: false, sock: "relay", wantHook: 1},
		{name: "stale variable: its own spool", sock: "missing", wantHook: 1},
		{name: "no variable", sock: "", wantHook: 1},
		{name: "relay that cannot append", outside: true, sock: "relay", relayBad: true, wantErr: "audit relay"},
		{name: "no relay, read-only spool", sock: "missing", hookBad: true, wantErr: "no vibing relay"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer auditspool.SetOutside(func(*net.UnixConn) bool { return tt.outside })()
			dir := t.TempDir()
			relaySpool := filepath.Join(dir, "relay", "audit.sqlite.hook-spool")
			hookSpool := filepath.Join(dir, "hook", "audit.sqlite.hook-spool")
			blocker := filepath.Join(dir, "file")
			if err := os.WriteFile(blocker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if tt.relayBad {
				relaySpool = filepath.Join(blocker, "spool")
			}
			if tt.hookBad {
				hookSpool = filepath.Join(blocker, "spool")
			}
			r, err := auditspool.StartRelay(relaySpool)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			switch tt.sock {
			case "relay":
				t.Setenv(auditspool.RelayEnv, r.Socket())
			case "missing":
				t.Setenv(auditspool.RelayEnv, filepath.Join(dir, "gone.sock"))
			default:
				t.Setenv(auditspool.RelayEnv, "")
			}
			err = auditspool.Write(hookSpool, auditspool.Entry{Decision: "deny", Tool: "Bash", Source: "forged", SessionID: "s1"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Write = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Write = %v", err)
			}
			rel, own := spooled(t, relaySpool), spooled(t, hookSpool)
			if len(rel) != tt.wantRelay || len(own) != tt.wantHook {
				t.Fatalf("rows: relay %d, hook %d; want %d, %d", len(rel), len(own), tt.wantRelay, tt.wantHook)
			}
			if len(rel) == 1 && (rel[0].Via != "hook" || rel[0].SessionID != "s1") {
				t.Errorf("relayed row = %+v, want via hook (forced), session s1", rel[0])
			}
		})
	}
}

// Without a stub the check is real: a relay in this very process is not
// outside the caller's sandbox, so its rows are not taken from the socket.
func TestRelayInSameNamespaceIsNotTrusted(t *testing.T) {
	r, err := auditspool.StartRelay(filepath.Join(t.TempDir(), "spool"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	err = auditspool.Send(r.Socket(), auditspool.Entry{Decision: "allow"})
	if err == nil || !strings.Contains(err.Error(), "no vibing relay") {
		t.Fatalf("Send = %v, want ErrNoRelay", err)
	}
}

// The relay answers what is not a row with an error and appends nothing;
// Close removes its folder.
func TestRelayRefusesGarbage(t *testing.T) {
	spool := filepath.Join(t.TempDir(), "spool")
	r, err := auditspool.StartRelay(spool)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"not json\n", "{\"tool\":\"Bash\"}\n", strings.Repeat("x", 2<<20) + "\n"} {
		c, err := net.Dial("unix", r.Socket())
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = c.Write([]byte(line)) }()
		answer, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if !strings.HasPrefix(answer, "error: ") {
			t.Errorf("answer to %.20q = %q, want an error", line, answer)
		}
	}
	if _, err := os.Stat(spool); err == nil {
		t.Errorf("the relay appended garbage to the spool")
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
	if _, err := os.Stat(r.Dir()); err == nil {
		t.Errorf("the relay's folder %s is left", r.Dir())
	}
}
