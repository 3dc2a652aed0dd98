package defaults_test

import (
	"testing"

	"vibing/internal/command"
	"vibing/internal/defaults"
)

// defaultRules maps the names testdata/defaults.txt uses to the rules.
var defaultRules = map[string]string{
	"DenySudo": defaults.DenySudo, "DenyRmRoot": defaults.DenyRmRoot, "DenyRmSystem": defaults.DenyRmSystem,
	"DenyRmHome": defaults.DenyRmHome, "DenyRmCwd": defaults.DenyRmCwd, "DenyDd": defaults.DenyDd,
	"DenyMkfs": defaults.DenyMkfs, "DenyChmodR": defaults.DenyChmodR, "DenyChmodWorld": defaults.DenyChmodWorld,
	"DenyForcePush": defaults.DenyForcePush, "DenyDownloadSh": defaults.DenyDownloadSh,
	"DenyForkBomb": defaults.DenyForkBomb, "DenyBraces": defaults.DenyBraces, "DenyUnchecked": defaults.DenyUnchecked,
}

// TestDefaultsCorpus runs testdata/defaults.txt: attacks each default rule
// must refuse (naming that rule) and everyday commands none may refuse.
func TestDefaultsCorpus(t *testing.T) {
	t.Parallel()
	env := testEnv
	denies, allows := 0, 0
	corpusRows(t, "testdata/defaults.txt", func(line int, fields []string) {
		switch fields[0] {
		case "@cwd":
			env.Cwd = fields[1]
			return
		case "@home":
			env.Home = fields[1]
			return
		}
		if len(fields) != 3 {
			t.Fatalf("defaults.txt:%d: %d fields, want 3", line, len(fields))
		}
		cmd := unescapeField(fields[2])
		got, ok := defaults.Deny(command.Prepare("Bash", map[string]any{"command": cmd}, env))
		switch fields[0] {
		case "deny":
			denies++
			want, known := defaultRules[fields[1]]
			if !known {
				t.Fatalf("defaults.txt:%d: unknown rule %q", line, fields[1])
			}
			if !ok || got != want {
				t.Errorf("defaults.txt:%d: Deny(%q) = %q, %v, want %s (%q)", line, cmd, got, ok, fields[1], want)
			}
		case "allow":
			allows++
			if ok {
				t.Errorf("defaults.txt:%d: Deny(%q) = %q, want no built-in rule to refuse it", line, cmd, got)
			}
		default:
			t.Fatalf("defaults.txt:%d: unknown expectation %q", line, fields[0])
		}
	})
	if denies < 10 || allows < 10 {
		t.Errorf("defaults corpus has %d attacks and %d everyday commands, want at least 10 of each", denies, allows)
	}
}

// TestDefaultDenySymlinks: a recursive rm or chmod through a symlink lands
// where the link points (proj/homelink -> home, proj/etclink -> /etc);
// removing the link itself does not.
func TestDenySymlinks(t *testing.T) {
	t.Parallel()
	_, env := bypassFixture(t)
	tests := []struct{ cmd, want string }{
		{"rm -rf homelink/", defaults.DenyRmHome},
		{"rm -rf homelink/*", defaults.DenyRmHome},
		{"rm -rf homelink/.ssh", defaults.DenyRmHome},
		{"rm -rf ./homelink/.", defaults.DenyRmHome},
		{"rm -rf etclink/", defaults.DenyRmSystem},
		{"rm -rf etclink/nginx", defaults.DenyRmSystem},
		{"chown -R me homelink/", defaults.DenyChmodR},
		{"rm -rf homelink", ""},
		{"rm -rf etclink", ""},
		{"rm -rf src", ""},
		{"rm -rf link/x", ""},
	}
	for _, tt := range tests {
		got, _ := defaults.Deny(command.Prepare("Bash", map[string]any{"command": tt.cmd}, env))
		if got != tt.want {
			t.Errorf("Deny(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}
