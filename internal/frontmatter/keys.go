package frontmatter

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// permissionKeys are the keys that hold permission settings.
var permissionKeys = []string{KeyAllow, KeyAsk, KeyDeny, KeyMode, KeyModeAlias, KeyPreset}

// checkKeys refuses a frontmatter key that looks like a permission key but
// is not one: permission_deny, permissions_denied, Permissions_Allow, a
// nested permissions: map or allowed_tools. Such a key is ignored by every
// reader, so a misspelled deny list would let through what it meant to stop;
// the chat is refused instead, naming the key and its line. A YAML merge key
// (<<) at the top is refused too: what it merges is not read as rules.
func (d *Document) checkKeys() error {
	for i := 0; i+1 < len(d.root.Content); i += 2 {
		k := d.root.Content[i]
		if k.Kind != yaml.ScalarNode {
			return fmt.Errorf("%w: line %d: a frontmatter key must be a plain name", ErrMalformed, k.Line+1)
		}
		if k.Value == "<<" {
			return fmt.Errorf("%w: line %d: a YAML merge key (<<) is not read for permissions; write the keys out", ErrMalformed, k.Line+1)
		}
		if want, bad := misspelled(k.Value); bad {
			hint := ""
			if want != "" {
				hint = fmt.Sprintf(" (did you mean %s?)", want)
			}
			return fmt.Errorf("%w: line %d: %q looks like a permission key but is not one%s; the chat is refused until it is fixed, so that no rule is silently ignored", ErrMalformed, k.Line+1, k.Value, hint)
		}
	}
	return nil
}

// misspelled reports whether key looks like a permission key without being
// one, and the key it most likely means ("" when unsure).
func misspelled(key string) (string, bool) {
	for _, k := range permissionKeys {
		if key == k {
			return "", false
		}
	}
	norm := strings.ToLower(strings.NewReplacer("-", "_", ".", "_", " ", "_").Replace(key))
	switch norm {
	case "allow", "ask", "deny", "mode", "allowed_tools", "disallowed_tools", "allowedtools", "disallowedtools", "preset":
		return "", true
	}
	if !strings.HasPrefix(norm, "perm") && !strings.Contains(norm, "permission") {
		return "", false
	}
	for _, part := range []struct{ stem, key string }{
		{"allow", KeyAllow}, {"ask", KeyAsk}, {"den", KeyDeny}, {"mod", KeyMode}, {"preset", KeyPreset},
	} {
		if strings.Contains(norm, part.stem) {
			return part.key, true
		}
	}
	return "", true
}
