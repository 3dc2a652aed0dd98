package procs

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Environment variables.
const (
	// MarkerEnv is set, in the command's environment, to a token of its own
	// for each Start: every process of the tree inherits it.
	MarkerEnv = "VIBING_RUN_MARKER"
	keeperEnv = "VIBING_KEEPER" // the parent's pid: act as keeper
	// keeperFilesEnv is how many files past stdio the keeper hands on to
	// its program, at the same descriptors (PassFile).
	keeperFilesEnv = "VIBING_KEEPER_FILES"
)

// Proc is one process of the system, as /proc says.
type Proc struct {
	Pid, PPid, Pgid int
	State           byte   // R, S, Z, ...
	StartTime       uint64 // clock ticks after boot
}

// List reads every process from /proc.
func List() ([]Proc, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	out := make([]Proc, 0, len(entries))
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Stat(pid); ok {
			out = append(out, p)
		}
	}
	return out, nil
}

// Stat reads /proc/PID/stat: "pid (comm) state ppid pgrp ...", where comm
// may hold spaces and parentheses.
func Stat(pid int) (Proc, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return Proc{}, false
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 || len(f[0]) == 0 {
		return Proc{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	var start uint64
	if len(f) > 19 {
		start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return Proc{Pid: pid, PPid: ppid, Pgid: pgid, State: f[0][0], StartTime: start}, true
}

// Alive reports whether p still runs (a zombie holds nothing).
func (p Proc) Alive() bool { return p.State != 'Z' && p.State != 'X' }

// Descendants returns the live processes below pid.
func Descendants(pid int) []Proc {
	all, err := List()
	if err != nil {
		return nil
	}
	kids := map[int][]Proc{}
	for _, p := range all {
		kids[p.PPid] = append(kids[p.PPid], p)
	}
	var out []Proc
	stack := []int{pid}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range kids[n] {
			if c.Pid == pid {
				continue
			}
			if c.Alive() {
				out = append(out, c)
			}
			stack = append(stack, c.Pid)
		}
	}
	return out
}

// Marked returns the live processes whose environment carries marker.
func Marked(marker string) []Proc {
	if marker == "" {
		return nil
	}
	return WithEnv(MarkerEnv + "=" + marker)
}

// WithEnv returns the live processes (but this one) whose environment holds
// the entry kv ("KEY=VALUE").
func WithEnv(kv string) []Proc {
	all, err := List()
	if err != nil {
		return nil
	}
	want := []byte(kv + "\x00")
	self := os.Getpid()
	var out []Proc
	for _, p := range all {
		if p.Pid == self || !p.Alive() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid) + "/environ")
		if err != nil {
			continue
		}
		if bytes.Contains(append(env, 0), want) {
			out = append(out, p)
		}
	}
	return out
}

// Sweep kills every live process that carries marker, until none is left
// (a process may fork while it is being killed). It returns how many it
// killed.
func Sweep(marker string) int {
	n := 0
	for round := 0; round < 50; round++ {
		ps := Marked(marker)
		if len(ps) == 0 {
			return n
		}
		for _, p := range ps {
			if syscall.Kill(p.Pid, syscall.SIGKILL) == nil {
				n++
			}
		}
		time.Sleep(time.Duration(round+1) * time.Millisecond)
	}
	return n
}

// NewMarker returns a fresh marker token.
func NewMarker() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("m%d-%d", os.Getpid(), time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}

// Command returns a command that runs name with args under a keeper (see
// the package doc), with marker in its environment. The caller sets Dir,
// Env (before the marker and keeper variables are added by Start), stdio.
func Command(marker, name string, args ...string) *exec.Cmd {
	self, err := os.Executable()
	if err != nil || keeperOff() {
		cmd := exec.Command(name, args...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd
	}
	if abs, err := filepath.Abs(name); err == nil && strings.ContainsRune(name, filepath.Separator) {
		name = abs
	}
	cmd := exec.Command(self, append([]string{name}, args...)...)
	// The keeper gets SIGTERM when its parent dies, and cleans up.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	return cmd
}

// Env returns the environment for a Command: env plus the marker and, when
// cmd runs a keeper, the variable that makes it one.
func Env(cmd *exec.Cmd, env []string, marker string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		if !strings.HasPrefix(kv, keeperEnv+"=") && !strings.HasPrefix(kv, MarkerEnv+"=") {
			out = append(out, kv)
		}
	}
	out = append(out, MarkerEnv+"="+marker)
	if cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig == syscall.SIGTERM {
		out = append(out, keeperEnv+"="+strconv.Itoa(os.Getpid()))
	}
	return out
}

// IsKeeper reports whether cmd (from Command) runs its program under a
// keeper: then cmd.Args[1] is that program.
func IsKeeper(cmd *exec.Cmd) bool {
	return cmd.SysProcAttr != nil && cmd.SysProcAttr.Pdeathsig == syscall.SIGTERM && len(cmd.Args) >= 2
}

// Prefix puts prefix (a program and its arguments, e.g. bubblewrap's) in
// front of the program cmd runs: inside the keeper for a keeper command (the
// keeper stays outside and ends all of it), else in front of cmd itself.
func Prefix(cmd *exec.Cmd, prefix []string) {
	if len(prefix) == 0 {
		return
	}
	if IsKeeper(cmd) {
		args := append([]string{cmd.Args[0]}, prefix...)
		cmd.Args = append(args, cmd.Args[1:]...)
		return
	}
	args := append(append([]string(nil), prefix...), cmd.Path)
	if len(cmd.Args) > 1 {
		args = append(args, cmd.Args[1:]...)
	}
	cmd.Path, cmd.Args = prefix[0], args
	cmd.Err = nil
}

// PassFile hands f to the program cmd runs (under its keeper too) and
// returns the descriptor it has there. Call it after cmd.Env is set.
func PassFile(cmd *exec.Cmd, f *os.File) int {
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	if IsKeeper(cmd) {
		if cmd.Env == nil {
			cmd.Env = os.Environ()
		}
		env := cmd.Env[:0:0]
		for _, kv := range cmd.Env {
			if !strings.HasPrefix(kv, keeperFilesEnv+"=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, keeperFilesEnv+"="+strconv.Itoa(len(cmd.ExtraFiles)))
	}
	return 2 + len(cmd.ExtraFiles)
}

// keeperOff lets a test (or a person chasing a problem) run the command
// without a keeper.
func keeperOff() bool { return os.Getenv("VIBING_NO_KEEPER") == "1" }

// ErrNoKeeper is returned by Stop when there is no keeper to ask.
var ErrNoKeeper = errors.New("no keeper")
