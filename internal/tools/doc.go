// Package tools knows the agent's tools: their canonical spelling, their
// permission level (read_only, mutating, network), and what kind of argument a
// rule for them takes (a command, a path, a domain, a pattern, or none).
//
// Every other package asks here instead of keeping its own tool table, so a new
// tool is added in one place.
package tools
