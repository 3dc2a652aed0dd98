// Package procs makes sure that every process an agent turn starts ends
// with it: the CLI, the tools it starts in process groups of their own, and
// anything those leave running in the background (a dev server).
//
// Start runs the command under a keeper: this same executable, re-executed
// with $VIBING_KEEPER set, which makes itself a child subreaper
// (PR_SET_CHILD_SUBREAPER), so every orphan of the command's process tree
// is reparented to it and found by walking /proc. When the command exits,
// or the keeper is told to stop (SIGTERM), or the process that started it
// dies (its parent-death signal is SIGTERM), the keeper kills the
// command's process group and every descendant left, reaps them, and exits
// with the command's status. The command itself gets SIGKILL as its
// parent-death signal, so even a keeper killed outright takes it along.
//
// Every process of the tree also carries a marker in its environment
// ($VIBING_RUN_MARKER), so a last sweep (Sweep) and the tests can find
// what escaped the tree.
package procs
