package matcher

import "vibing/internal/command"

// Allow rules together with the reads the engine lets pass (readsonly.go).

// CoversWithReads reports whether every command of Bash line c is either
// covered by one of the allow rules or a read that ReadsOnlyInside would
// pass (npm test 2>&1 | tail -20 under Bash(npm:*)), with at least one of
// each, and returns the first covering rule. As for ReadsOnlyInside, the
// line is seen whole and every word that may name a file lies inside the
// working folder; what the covered commands write must be allowed by the
// Write and Edit rules, as for Covers; a reader writes nothing.
func CoversWithReads(rules []*Rule, c *command.Call, repo command.RepoCheck) (*Rule, bool) {
	if len(rules) == 0 || !c.SeenWhole() {
		return nil, false
	}
	var deciding *Rule
	reads := 0
	for i := range c.Commands {
		if c.Commands[i].ModeRead(repo) {
			reads++
			continue
		}
		if c.Commands[i].DenyOnly() {
			return nil, false // (Covers passes over it; here a person judges)
		}
		r := coveredBy(rules, c, i, nil)
		if r == nil {
			return nil, false
		}
		if deciding == nil {
			deciding = r
		}
	}
	if deciding == nil || reads == 0 {
		return nil, false
	}
	for _, w := range nonTrivialWrites(c) {
		if !writeAllowed(rules, c, w) {
			return nil, false
		}
	}
	if !c.WordsInside() {
		return nil, false
	}
	return deciding, true
}
