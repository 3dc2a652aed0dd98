package matcher

import "vibing/internal/command"

// A deny or ask command rule of exact or prefix form that names a word
// past its command (Bash(git push --force:*) names push) fires on a
// command only if one of the word lists it is tried against (the words,
// the words behind wrappers, the further readings: denyCommand) carries
// that word as written: wordsEqualDyn compares it, and flagSpec.match
// looks for it among the command's other words. A word only known at run
// time matches any, a command the engine cannot see into or whose braces
// overflow fires every rule, and a line that did not parse too: on those
// the test says nothing. TestWordGateTwin holds it to the rules.

// LineWords is a Bash line's word mask for WordTest.Rejects, made on its
// first use by a test that can reject (a zero LineWords is unmade).
type LineWords struct {
	mask     uint64 // a bit (wordBit) for every word of every list of every command
	ok, made bool   // ok: the mask speaks (see above)
}

// WordTest is a rule's word test, kept apart from the rule: a list of them
// side by side is read without reading the rules.
type WordTest struct{ bit uint64 }

// wordBit is w's bit of a LineWords mask.
func wordBit(w string) uint64 {
	if w == "" {
		return 1
	}
	return 1 << ((uint(len(w))*7 + uint(w[0])*3 + uint(w[len(w)-1])) & 63)
}

// WordTest returns r's word test: one that passes nothing over for no rule,
// a rule of another kind or form, a reference rule (pat.Full), or one
// that names no plain word past its command; a rule with its short names
// spelled out (spelled) passes over a line that has neither spelling's
// word.
func (r *Rule) WordTest() WordTest {
	if r == nil || r.kind != kindBash || r.pat.Full || r.mode != bashExact && r.mode != bashPrefix {
		return WordTest{}
	}
	var t WordTest
	for _, w := range r.words[min(1, len(r.words)):] {
		if w != "--" && !command.IsFlagWord(w) {
			t.bit = wordBit(w)
			break
		}
	}
	for _, o := range r.spelled {
		ot := o.WordTest()
		if t.bit == 0 || ot.bit == 0 {
			return WordTest{} // (a spelling that names no word: nothing is passed over)
		}
		t.bit |= ot.bit // either spelling's word on the line keeps the rule
	}
	return t
}

// Rejects reports that the rule t was made for matches c in neither the
// deny nor the ask list, told by t and the line's mask m alone (made from
// c on first use; m is for c alone); false says nothing.
func (t WordTest) Rejects(c *command.Call, m *LineWords) bool {
	if t.bit == 0 {
		return false
	}
	if !m.made {
		m.make(c)
	}
	return m.ok && m.mask&t.bit == 0
}

func (m *LineWords) make(c *command.Call) {
	m.made = true
	if c == nil || c.Tool != "Bash" || c.Err != nil || c.BraceOverflow {
		return
	}
	var mask uint64
	for i := range c.Commands {
		cmd := &c.Commands[i]
		if cmd.BraceOverflow || cmd.Unseen() != "" || cmd.More().Dyn != nil {
			return
		}
		for _, w := range cmd.Words {
			mask |= wordBit(w)
		}
		if !cmd.ArgsSame() {
			for _, w := range cmd.Args {
				mask |= wordBit(w)
			}
		}
		for _, a := range cmd.More().Alts {
			for _, w := range a {
				mask |= wordBit(w)
			}
		}
	}
	m.mask, m.ok = mask, true
}
