package procs

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

func init() {
	if v := os.Getenv(keeperEnv); v != "" {
		os.Exit(keep(v, os.Args[1:]))
	}
}

// keep is the keeper's main: it runs args, waits for them, and leaves
// nothing of their process tree behind.
func keep(parent string, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "vibing keeper: no command")
		return 127
	}
	// Orphans of the tree are reparented to us, so we see and reap them.
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		err := error(e)
		fmt.Fprintf(os.Stderr, "vibing keeper: cannot become a child subreaper: %v\n", err)
		return 127
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE)
	// The parent-death signal was set before exec; a parent that died
	// before that left us with another parent already.
	if strconv.Itoa(os.Getppid()) != parent {
		return 137
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if (len(kv) < len(keeperEnv)+1 || kv[:len(keeperEnv)+1] != keeperEnv+"=") &&
			(len(kv) < len(keeperFilesEnv)+1 || kv[:len(keeperFilesEnv)+1] != keeperFilesEnv+"=") {
			env = append(env, kv)
		}
	}
	// The command reads and writes our stdio directly (the same pipes),
	// and the files PassFile handed on; its own process group, and
	// SIGKILL should we die.
	files := []*os.File{os.Stdin, os.Stdout, os.Stderr}
	if n, err := strconv.Atoi(os.Getenv(keeperFilesEnv)); err == nil {
		for i := 0; i < n && i < 64; i++ {
			files = append(files, os.NewFile(uintptr(3+i), "passed"))
		}
	}
	attr := &os.ProcAttr{Env: env, Files: files,
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	p, err := os.StartProcess(args[0], args, attr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "vibing keeper: %v\n", err)
		return 127
	}
	for _, f := range files[3:] {
		_ = f.Close()
	}
	// Our copies of the pipes would keep them open after the command ends.
	if null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0); err == nil {
		_ = syscall.Dup3(int(null.Fd()), 0, 0)
		_ = syscall.Dup3(int(null.Fd()), 1, 0)
		null.Close()
	}
	exited := make(chan syscall.WaitStatus, 1)
	go reap(p.Pid, exited)
	var status syscall.WaitStatus
	select {
	case status = <-exited:
	case <-sigs:
		_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
		_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		status = <-exited
	}
	killTree()
	if status.Signaled() {
		sig := status.Signal()
		signal.Reset(sig)
		_ = syscall.Kill(os.Getpid(), sig)
		time.Sleep(100 * time.Millisecond)
		return 128 + int(sig)
	}
	return status.ExitStatus()
}

// reap waits for every child (the command and the orphans reparented to
// us) and reports the command's status once it ended.
func reap(cmd int, exited chan<- syscall.WaitStatus) {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil { // ECHILD: nothing left; wait for new orphans
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if pid == cmd {
			_ = syscall.Kill(-cmd, syscall.SIGKILL) // its group: tools it did not wait for
			exited <- ws
		}
	}
}

// killTree kills every process below us until none is left.
func killTree() {
	self := os.Getpid()
	for round := 0; round < 100; round++ {
		ps := Descendants(self)
		if len(ps) == 0 {
			return
		}
		for _, p := range ps {
			_ = syscall.Kill(p.Pid, syscall.SIGKILL)
		}
		time.Sleep(time.Duration(min(round+1, 20)) * time.Millisecond)
	}
}
