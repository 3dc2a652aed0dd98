package matcher

import (
	"slices"

	"vibing/internal/command"
)

// AllowIndex is a list of allow rules kept by the first word their exact
// or prefix form fixes (Rule.lead): a command of a line meets only the
// rules of its own first word and those that fix none, in list order, so
// the rule coveredBy finds first is the one the whole list gives (a rule
// of another first word cannot cover it: TestAllowLeadTwin). A reference
// rule fixes no first word. TestAllowIndexTwin holds it to the list.
type AllowIndex struct {
	rules  []*Rule   // the list
	leads  []uint64  // the first words the rules fix (leadKey), each once
	groups [][]*Rule // groups[i]: the rules of leads[i] and those that fix none, in list order
	free   []*Rule   // the rules that fix no first word, in list order
}

// maxLeads bounds the first words an index keeps apart (a list cut for a
// line holds the rules of its few command names): past it, every command
// meets the whole list.
const maxLeads = 16

// NewAllowIndex keeps rules (nil ones are passed over, as coveredBy does)
// by their first words.
func NewAllowIndex(rules []*Rule) *AllowIndex {
	x := &AllowIndex{rules: rules}
	for _, r := range rules {
		if r != nil && r.lead != 0 && !slices.Contains(x.leads, r.lead) {
			x.leads = append(x.leads, r.lead)
		}
	}
	if len(x.leads) > maxLeads {
		x.leads = nil
		return x
	}
	x.groups = make([][]*Rule, len(x.leads))
	for _, r := range rules {
		switch {
		case r == nil:
		case r.lead == 0:
			x.free = append(x.free, r)
			for i := range x.groups {
				x.groups[i] = append(x.groups[i], r)
			}
		default:
			i := slices.Index(x.leads, r.lead)
			x.groups[i] = append(x.groups[i], r)
		}
	}
	return x
}

// CoversBy is Covers on x's list, each command meeting only the rules its
// first word may be covered by.
func CoversBy(x *AllowIndex, c *command.Call) (covered bool, deciding *Rule) {
	return covers(x.rules, c, x)
}

// forLead is the rules a command whose first word has key lead (0: none a
// rule can tell it by) may be covered by, in list order.
func (x *AllowIndex) forLead(rules []*Rule, lead uint64) []*Rule {
	if x == nil || lead == 0 || x.groups == nil {
		return rules
	}
	for i, l := range x.leads {
		if l == lead {
			return x.groups[i]
		}
	}
	return x.free
}
