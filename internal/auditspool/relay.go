package auditspool

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// RelayEnv names the environment variable that tells a hook inside the
// sandbox where the relay's socket is (SPEC §14): the spool beside the audit
// database is read-only in there, so the hook hands its rows to the relay
// that `vibing-agent claude` (or run) keeps outside, which appends them.
const RelayEnv = "VIBING_HOOK_RELAY"

// relayLine bounds one row on the relay (a Bash line is at most 256 KiB).
const relayLine = 1 << 20

// relayTimeout bounds one exchange on either side.
const relayTimeout = 5 * time.Second

// ErrNoRelay is wrapped when the socket a hook was given is not a relay of
// vibing's outside its sandbox: nothing listens there, or its listener is a
// process the hook can see (one started inside the sandbox, or a session
// that is not sandboxed at all). The hook then writes the spool itself.
var ErrNoRelay = errors.New("no vibing relay outside this sandbox")

// Relay takes audit rows over a unix socket and appends them to one spool.
// It only appends: a process that reaches the socket can add rows, never
// change or remove one, and never choose the file they go to.
type Relay struct {
	dir   string
	spool string
	l     *net.UnixListener
	wg    sync.WaitGroup
}

// StartRelay listens on a socket in a new private folder (0700) and appends
// every row it gets to the spool at spool.
func StartRelay(spool string) (*Relay, error) {
	dir, err := os.MkdirTemp("", "vibing-relay-")
	if err != nil {
		return nil, fmt.Errorf("audit relay: %w", err)
	}
	sock := filepath.Join(dir, "hook.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("audit relay: %w", err)
	}
	r := &Relay{dir: dir, spool: spool, l: l}
	r.wg.Add(1)
	go r.serve()
	return r, nil
}

// Dir is the folder that holds the socket: the sandbox shows it read-only.
func (r *Relay) Dir() string { return r.dir }

// Socket is the socket's path, for RelayEnv.
func (r *Relay) Socket() string { return filepath.Join(r.dir, "hook.sock") }

// Close stops listening, waits for the rows being taken, and removes the
// socket's folder.
func (r *Relay) Close() error {
	if r == nil {
		return nil
	}
	err := r.l.Close()
	r.wg.Wait()
	_ = os.RemoveAll(r.dir)
	return err
}

func (r *Relay) serve() {
	defer r.wg.Done()
	for {
		c, err := r.l.AcceptUnix()
		if err != nil {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(relayTimeout))
			_, _ = c.Write([]byte(r.take(c) + "\n"))
		}()
	}
}

// take reads one row and appends it; the answer is "ok" once it is in the
// spool, else "error: why".
func (r *Relay) take(c net.Conn) string {
	line, err := bufio.NewReader(io.LimitReader(c, relayLine+1)).ReadBytes('\n')
	if err != nil || len(line) > relayLine {
		return "error: a row must be one line under 1 MiB"
	}
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil || e.Decision == "" {
		return "error: not an audit row"
	}
	// rows through the relay are the hook's, whatever they claim
	e.Via = "hook"
	if err := Append(r.spool, e); err != nil {
		return "error: " + strings.ReplaceAll(err.Error(), "\n", " ")
	}
	return "ok"
}

// outside reports whether the socket's listener runs outside the caller's
// process-id namespace (the kernel then reports its pid as 0) as the same
// user: only the relay of the vibing-agent that started the sandbox can be
// that, since nothing inside can make a namespace of its own. A variable.
var outside = func(c *net.UnixConn) bool {
	raw, err := c.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	_ = raw.Control(func(fd uintptr) {
		u, err := syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		ok = err == nil && u.Pid == 0 && int(u.Uid) == os.Getuid()
	})
	return ok
}

// Send hands e to the relay at sock and returns once the relay appended it.
// An error wrapping ErrNoRelay means the socket is not a relay outside this
// sandbox (the row was not sent); any other error means the relay failed.
func Send(sock string, e Entry) error {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("audit relay: %w", err)
	}
	conn, err := net.DialTimeout("unix", sock, relayTimeout)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoRelay, err)
	}
	defer conn.Close()
	uc, ok := conn.(*net.UnixConn)
	if !ok || !outside(uc) {
		return fmt.Errorf("%w: %s is served from inside this sandbox or no sandbox", ErrNoRelay, sock)
	}
	_ = conn.SetDeadline(time.Now().Add(relayTimeout))
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit relay %s: %w", sock, err)
	}
	answer, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		return fmt.Errorf("audit relay %s: no answer: %w", sock, err)
	}
	if answer = strings.TrimSpace(answer); answer != "ok" {
		return fmt.Errorf("audit relay %s: %s", sock, answer)
	}
	return nil
}

// Write records e the way a hook must: through the relay named by
// $VIBING_HOOK_RELAY when that is vibing's relay outside the sandbox the
// hook runs in, else (no variable, a stale one, a socket someone else
// serves) by appending to the spool itself. A relay that was reached but
// failed is an error, as is a spool that cannot be written (read-only
// inside the sandbox): the caller refuses the call it records.
func Write(spool string, e Entry) error {
	sock := os.Getenv(RelayEnv)
	if sock == "" {
		return Append(spool, e)
	}
	err := Send(sock, e)
	if err == nil || !errors.Is(err, ErrNoRelay) {
		return err
	}
	if aerr := Append(spool, e); aerr != nil {
		return fmt.Errorf("%v (and %v)", aerr, err)
	}
	return nil
}
