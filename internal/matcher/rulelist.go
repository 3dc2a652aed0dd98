package matcher

import (
	"errors"
	"fmt"
)

// List is the list a rule stands in; matching differs between them (allow
// must cover, deny and ask fire on any part and fail closed).
type List int

// The three rule lists.
const (
	AllowList List = iota
	AskList
	DenyList
)

func (l List) String() string {
	switch l {
	case AskList:
		return "ask"
	case DenyList:
		return "deny"
	}
	return "allow"
}

// ErrInvalidRule is wrapped by every *RuleError.
var ErrInvalidRule = errors.New("invalid rule")

// RuleError says why a rule text is not a valid rule, naming the rule and
// showing a correct example.
type RuleError struct {
	Rule    string // the rule text as given
	Msg     string // what is wrong, one sentence without trailing period
	Example string // a correct rule of the same intent, e.g. "Bash(npm test:*)"
}

func (e *RuleError) Error() string {
	if e.Example == "" {
		return fmt.Sprintf("invalid rule %q: %s", e.Rule, e.Msg)
	}
	return fmt.Sprintf("invalid rule %q: %s (example: %s)", e.Rule, e.Msg, e.Example)
}

func (e *RuleError) Unwrap() error { return ErrInvalidRule }
