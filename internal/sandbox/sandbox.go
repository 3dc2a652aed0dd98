package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// baseFlags start every sandbox: its own user namespace in which no further
// one can be made and every capability dropped (a root inside must not
// remount the read-only binds), its own process ids, gone with its parent.
var baseFlags = []string{"--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-pid", "--die-with-parent"}

// ErrUnavailable is wrapped by every reason bubblewrap cannot run here.
var ErrUnavailable = errors.New("bubblewrap cannot start here")

var (
	probeOnce sync.Once
	probeBin  string
	probeErr  error
)

// Find returns the bwrap binary once it has been seen to start a sandbox
// like ours on this machine (checked once per process), or an error that
// says why not in one sentence (not installed; no user namespaces).
func Find() (string, error) {
	probeOnce.Do(func() { probeBin, probeErr = probe() })
	return probeBin, probeErr
}

func probe() (string, error) {
	// $VIBING_BWRAP names the binary (the tests' private one on a machine
	// without bubblewrap: make deps); else bwrap on PATH.
	name := "bwrap"
	if env := os.Getenv("VIBING_BWRAP"); env != "" {
		name = env
	}
	bin, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%w: bwrap is not installed (Debian and Ubuntu: apt-get install bubblewrap)", ErrUnavailable)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append([]string(nil), baseFlags...), "--new-session", "--ro-bind", "/", "/",
		"--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--", "true")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%w: %s fails: %s (user namespaces may be off: sysctl kernel.unprivileged_userns_clone or an AppArmor profile for bwrap)", ErrUnavailable, bin, msg)
	}
	return bin, nil
}

// Choice is what a run does about the sandbox.
type Choice struct {
	Use    bool   // start the CLI inside bubblewrap
	Bwrap  string // the binary, when Use
	Notice string // for the person when the sandbox is off ("" when on)
}

// Choose applies the sandbox setting (auto, on, off; "" is auto): auto uses
// bubblewrap where it starts and says why not elsewhere, on refuses to run
// without it (an error), off says that it is off.
func Choose(setting string) (Choice, error) {
	switch setting {
	case "off":
		return Choice{Notice: "the sandbox is off (sandbox = \"off\"): scripts the agent runs can read and write whatever you can"}, nil
	case "", "auto", "on":
	default:
		return Choice{}, fmt.Errorf("sandbox must be auto, on or off, got %q", setting)
	}
	bin, err := Find()
	if err != nil {
		if setting == "on" {
			return Choice{}, fmt.Errorf("sandbox = \"on\" but %v; install bubblewrap or set sandbox = \"auto\"", err)
		}
		return Choice{Notice: fmt.Sprintf("the sandbox is off: %v; scripts the agent runs can read and write whatever you can", err)}, nil
	}
	return Choice{Use: true, Bwrap: bin}, nil
}
