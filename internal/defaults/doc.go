// Package defaults holds the built-in deny rules: the destructive commands
// refused in every mode while default_deny_rules is on (a recursive rm of a
// place that matters, a forced push to main, sudo and its kin, a recursive
// chmod, a pipe from a download into a shell, the fork bomb, ...). Deny reads
// them off the one analysis of the call (internal/command), and off the raw
// words of a line that does not parse.
package defaults
