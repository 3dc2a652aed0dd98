// Package session is the decision pipeline of SPEC §4: for one tool call of
// one chat it answers allow, ask or deny, with the rule, the source and one
// human sentence that explain why.
//
// The order is fixed and short-circuits: guard, deny list and default deny
// rules, session deny, session allow, ask list, allow list, mode (with the
// per-tool policies), and finally ask-becomes-deny where no prompt can be
// shown. An Engine compiles a chat's settings once and then decides calls
// concurrently; session grants and "always" answers change it in memory.
package session
