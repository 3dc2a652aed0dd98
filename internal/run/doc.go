// Package run is one chat turn: it drives an agent Backend (the claude CLI,
// or a scripted one), speaks the JSON Lines protocol of SPEC §7 with the
// editor, and gates every tool call through the session pipeline.
//
// Data flow:
//
//	editor ──stdin JSON Lines──▶ Runner ──Turn──▶ Backend (claude CLI)
//	editor ◀─stdout JSON Lines── Runner ◀─Events── Backend
//	                             Runner ──Verdict─▶ Backend (per tool call)
//
// The Runner is a single loop: backend events, editor messages, the approval
// timer and the cancel grace timer all arrive on channels it selects on, so
// no state is shared between goroutines. Permission requests queue and are
// decided one at a time, in arrival order; an ask holds the queue until the
// person answers, the timeout fires, or the run is cancelled. Everything that
// is not a clear "yes" (timeout, cancel, the editor closing stdin, an answer
// that cannot be understood) is a deny. The pipeline (session.Engine) is the
// only authority; the Runner never allows a call the pipeline did not allow
// or the person did not approve.
package run
