package run

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// DefaultAuditWait bounds one audit write (the database's own busy waits
// and retries come first).
const DefaultAuditWait = 30 * time.Second

// auditJob is one row to write; done runs on the event loop with the result.
type auditJob struct {
	entry AuditEntry
	done  func(error)
}

type auditResult struct {
	job auditJob
	err error
}

// auditQueue writes rows in order on a goroutine of its own, so a slow or
// locked database never holds up the event loop (timers, cancel,
// approvals). Writes use a context of their own, not the run's: a row
// written while the run shuts down (SIGTERM) must still reach the disk.
type auditQueue struct {
	rec     Recorder
	wait    time.Duration
	results chan auditResult

	mu      sync.Mutex
	cond    *sync.Cond
	jobs    []auditJob
	closed  bool
	pending int // jobs handed in whose result the loop has not taken yet
}

func newAuditQueue(rec Recorder, wait time.Duration) *auditQueue {
	if wait <= 0 {
		wait = DefaultAuditWait
	}
	q := &auditQueue{rec: rec, wait: wait, results: make(chan auditResult, 64)}
	q.cond = sync.NewCond(&q.mu)
	if rec != nil {
		go q.work()
	}
	return q
}

// add queues a row. Without a recorder, done runs at once (tests only).
func (q *auditQueue) add(e AuditEntry, done func(error)) {
	if q.rec == nil {
		done(nil)
		return
	}
	q.mu.Lock()
	q.jobs = append(q.jobs, auditJob{entry: e, done: done})
	q.pending++
	q.mu.Unlock()
	q.cond.Signal()
}

// outstanding is the number of rows whose result the loop still awaits.
func (q *auditQueue) outstanding() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.pending
}

// taken marks one result as handled by the loop.
func (q *auditQueue) taken() {
	q.mu.Lock()
	q.pending--
	q.mu.Unlock()
}

func (q *auditQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.cond.Broadcast()
}

func (q *auditQueue) work() {
	for {
		q.mu.Lock()
		for len(q.jobs) == 0 && !q.closed {
			q.cond.Wait()
		}
		if len(q.jobs) == 0 {
			q.mu.Unlock()
			return
		}
		j := q.jobs[0]
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		q.results <- auditResult{job: j, err: q.write(j.entry)}
	}
}

func (q *auditQueue) write(e AuditEntry) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the audit recorder failed: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), q.wait)
	defer cancel()
	return q.rec.Record(ctx, e)
}

// newRunID names one run in the audit rows' call keys.
func newRunID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("t%d", time.Now().UnixNano())
	}
	return hex.EncodeToString(b[:])
}
