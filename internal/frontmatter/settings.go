package frontmatter

import (
	"fmt"

	"gopkg.in/yaml.v3"
)

// Settings decodes the chat settings. A wrong type (a list that is a number,
// a mode that is a map) is an error naming the key. A list key written as a
// single string (permissions_allow: Read) is accepted as a one-item list; an
// empty value (permissions_allow:) is an empty list. When both
// permission_mode and permissions_mode are set, permission_mode wins, as in
// the original vibing.nvim (it is the newer key in its chats); ModeNote says
// so. A key that looks like a permission key but is not one is an error
// (see checkKeys): ignoring it would drop rules without a word.
func (d *Document) Settings() (Settings, error) {
	s := Settings{Allow: []string{}, Ask: []string{}, Deny: []string{}}
	if d.root == nil {
		return s, nil
	}
	if err := d.checkKeys(); err != nil {
		return s, err
	}
	var err error
	if n := d.value(KeyVibing); n != nil {
		if s.Vibing, err = boolValue(KeyVibing, n); err != nil {
			return s, err
		}
	}
	scalars := []struct {
		key string
		dst *string
	}{
		{KeySessionID, &s.SessionID},
		{KeyCreatedAt, &s.CreatedAt},
		{KeyWorkingDir, &s.WorkingDir},
		{KeyMode, &s.Mode},
		{KeyModeAlias, &s.Mode},
		{KeyPreset, &s.Preset},
		{KeyModel, &s.Model},
		{KeyForkOf, &s.ForkOf},
	}
	for _, sc := range scalars {
		n := d.value(sc.key)
		if n == nil {
			continue
		}
		v, err := stringValue(sc.key, n)
		if err != nil {
			return s, err
		}
		if v != "" || (sc.key != KeyMode && sc.key != KeyModeAlias) {
			*sc.dst = v
		}
	}
	if a, m := d.value(KeyModeAlias), d.value(KeyMode); a != nil && m != nil && a.Value != "" && m.Value != "" && a.Value != m.Value {
		s.ModeNote = fmt.Sprintf("%s: %s wins over %s: %s (the original vibing.nvim reads the singular key first)", KeyModeAlias, a.Value, KeyMode, m.Value)
	}
	lists := []struct {
		key string
		dst *[]string
	}{{KeyAllow, &s.Allow}, {KeyAsk, &s.Ask}, {KeyDeny, &s.Deny}}
	for _, l := range lists {
		n := d.value(l.key)
		if n == nil {
			continue
		}
		if *l.dst, err = listValue(l.key, n); err != nil {
			return s, err
		}
	}
	return s, nil
}

// value returns the value node of a top-level key (aliases resolved), or nil.
func (d *Document) value(key string) *yaml.Node {
	i := d.keyIndex(key)
	if i < 0 {
		return nil
	}
	return resolve(d.root.Content[i+1])
}

// keyIndex returns the index of key's key node in root.Content, or -1.
func (d *Document) keyIndex(key string) int {
	if d.root == nil {
		return -1
	}
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i]
		if k.Kind == yaml.ScalarNode && k.Value == key {
			return i
		}
	}
	return -1
}

func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	return n
}

func typeError(key string, n *yaml.Node, want string) error {
	return fmt.Errorf("%w: line %d: %s must be %s, got %s", ErrMalformed, n.Line+1, key, want, kindName(n))
}

func boolValue(key string, n *yaml.Node) (bool, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return false, nil
	}
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		return false, typeError(key, n, "true or false")
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, typeError(key, n, "true or false")
	}
	return b, nil
}

// stringValue reads a scalar as its text; numbers and timestamps are kept as
// written, an empty value is "".
func stringValue(key string, n *yaml.Node) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", typeError(key, n, "a single value")
	}
	if n.Tag == "!!null" {
		return "", nil
	}
	return n.Value, nil
}

// listValue reads a list of rules. Every item must be a non-empty scalar.
func listValue(key string, n *yaml.Node) ([]string, error) {
	switch {
	case n.Kind == yaml.ScalarNode && n.Tag == "!!null":
		return []string{}, nil
	case n.Kind == yaml.ScalarNode && n.Tag == "!!str":
		if n.Value == "" {
			return nil, fmt.Errorf("%w: line %d: %s is an empty string; write [] for an empty list", ErrMalformed, n.Line+1, key)
		}
		return []string{n.Value}, nil
	case n.Kind != yaml.SequenceNode:
		return nil, typeError(key, n, "a list of rules")
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		it = resolve(it)
		if it.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("%w: line %d: %s items must be rule strings, got %s", ErrMalformed, it.Line+1, key, kindName(it))
		}
		if it.Tag == "!!null" || it.Value == "" {
			return nil, fmt.Errorf("%w: line %d: %s has an empty item", ErrMalformed, it.Line+1, key)
		}
		out = append(out, it.Value)
	}
	return out, nil
}
