package auditexport

import (
	"context"
	"sync"
	"time"

	"vibing/internal/audit"
)

// Sender sends rows as one batch and returns nil once the collector
// accepted them (otlp.Exporter).
type Sender interface {
	Send(ctx context.Context, rows []audit.Row) error
}

// Bounds of a pass.
const (
	// Batch is how many rows go in one request.
	Batch = 256
	// Backlog bounds the rows kept waiting: when more wait, the oldest
	// beyond it are marked skipped (they stay in SQLite; audit
	// --export-status counts them).
	Backlog = 100000
)

// Drain sends every row waiting in db, oldest first, in batches, marking
// each batch once the collector accepted it. It stops at the first batch
// the collector refuses or cannot take; the rows stay waiting.
func Drain(ctx context.Context, db *audit.DB, x Sender) (sent int, err error) {
	for {
		rows, err := db.Pending(ctx, Batch, Backlog)
		if err != nil || len(rows) == 0 {
			return sent, err
		}
		if err := x.Send(ctx, rows); err != nil {
			return sent, err
		}
		if err := db.MarkExported(ctx, rows); err != nil {
			return sent, err
		}
		sent += len(rows)
	}
}

// Loop runs passes beside a process that records rows (run, rpc): one at
// its start (the rows an earlier process left), one after each Kick, and
// while rows wait, again after a pause that grows while the collector is
// away. Nothing it does blocks the caller.
type Loop struct {
	kick   chan struct{}
	stop   chan struct{}
	done   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	lastEr error
}

// Pass is one pass: open the database (import what the hook spooled),
// drain, close. It reports how many rows it sent.
type Pass func(ctx context.Context) (sent int, err error)

// Start starts a loop that runs pass; idle is the pause between passes
// when nothing kicks (0: only kicks and retries).
func Start(pass Pass, idle time.Duration) *Loop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &Loop{kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}), ctx: ctx, cancel: cancel}
	go l.run(pass, idle)
	l.Kick()
	return l
}

// Kick asks for a pass soon; it never blocks.
func (l *Loop) Kick() {
	if l == nil {
		return
	}
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Err is the error of the last pass, nil when it sent everything.
func (l *Loop) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lastEr
}

// Stop ends the loop within grace: a pass under way and one last pass get
// that long together (rows they cannot send wait for the next process).
func (l *Loop) Stop(grace time.Duration) {
	if l == nil {
		return
	}
	t := time.AfterFunc(grace, l.cancel)
	defer t.Stop()
	close(l.stop)
	<-l.done
	l.cancel()
}

func (l *Loop) run(pass Pass, idle time.Duration) {
	defer close(l.done)
	const minRetry, maxRetry = 500 * time.Millisecond, time.Minute
	retry := time.Duration(0)
	do := func() {
		if l.ctx.Err() != nil {
			return
		}
		_, err := pass(l.ctx)
		l.mu.Lock()
		l.lastEr = err
		l.mu.Unlock()
		switch {
		case err == nil:
			retry = 0
		case retry == 0:
			retry = minRetry
		case retry < maxRetry:
			retry *= 2
		}
	}
	for {
		wait := idle
		if retry > 0 && (wait == 0 || retry < wait) {
			wait = retry
		}
		var tick <-chan time.Time
		var t *time.Timer
		if wait > 0 {
			t = time.NewTimer(wait)
			tick = t.C
		}
		select {
		case <-l.kick:
			do()
		case <-tick:
			do()
		case <-l.stop:
			do()
			if t != nil {
				t.Stop()
			}
			return
		}
		if t != nil {
			t.Stop()
		}
	}
}
