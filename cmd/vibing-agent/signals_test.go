package main

import "testing"

// The commands that must stop cleanly on SIGINT and SIGTERM watch for them
// (run denies its pending approval, ends the turn and the CLI with its
// tools, and a second signal kills them at once: TestRunStops,
// TestRealSignalDuringApproval); the short ones leave the signals alone, so
// that their start pays for no signal thread.
func TestCommandsThatWatchSignals(t *testing.T) {
	want := map[string]bool{"run": true, "rpc": true, "audit": true, "claude": true,
		"check": false, "hook": false, "explain": false, "validate": false, "version": false, "trust": false, "test": false,
		"sandbox-net": false} // it becomes the CLI (exec): the signals are the CLI's
	for name, signals := range want {
		c, ok := commands[name]
		if !ok {
			t.Errorf("no command %q", name)
			continue
		}
		if c.signals != signals {
			t.Errorf("%s: signals = %v, want %v", name, c.signals, signals)
		}
	}
	if len(commands) != len(want) {
		t.Errorf("%d commands, %d in this table: say whether each new command watches signals", len(commands), len(want))
	}
}
