package policy

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"

	"gopkg.in/yaml.v3"

	"vibing/internal/config"
	"vibing/internal/session"
)

// ErrMalformed is wrapped by every error about a policy file that cannot be
// read as one: the engine then refuses every call (SPEC §3, fail closed),
// as it does for an UnreadableError.
var ErrMalformed = errors.New("malformed policy file")

// UnreadableError is a policy or settings file, or a folder of them, of any
// layer that exists but cannot be read: no permission, a FIFO or a device,
// larger than safefile.PolicyLimit. Like a malformed file it makes the
// engine refuse every call: the rules it holds may be the ones that deny
// this call.
type UnreadableError struct {
	What string // policy file, settings file, policy folder, settings folder
	Path string
	Err  error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("%s %s cannot be read: %v", e.What, e.Path, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

// unreadable says why path cannot be read.
func unreadable(what, path string, err error) error {
	return &UnreadableError{What: what, Path: path, Err: pathless(path, err)}
}

// pathless is err without the path a sentence names already.
func pathless(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return pe.Err
	}
	return err
}

// vibingFile is a vibing policy file (/etc/vibing/policy.yaml,
// ~/.config/vibing/policy.yaml, <project>/.vibing/policy.yaml):
//
//	allow: [..]   ask: [..]   deny: [..]   mode: default
//	# managed files only:
//	disable_bypass: true   disable_always: true
//	disable_session_grants: true   managed_rules_only: true
//	audit_export_endpoint: https://otel.example.org:4318
//	audit_export_protocol: http/protobuf   audit_export_inputs: false
type vibingFile struct {
	rules    session.PolicyFile
	switches session.Switches
	export   Export
}

var switchKeys = map[string]func(*session.Switches) *bool{
	"disable_bypass":         func(s *session.Switches) *bool { return &s.DisableBypass },
	"disable_always":         func(s *session.Switches) *bool { return &s.DisableAlways },
	"disable_session_grants": func(s *session.Switches) *bool { return &s.DisableSessionGrants },
	"managed_rules_only":     func(s *session.Switches) *bool { return &s.ManagedRulesOnly },
}

// parseVibingFile reads data, the policy file at path of the given layer.
// Every key is checked: an unknown key is an error naming its line (a
// misspelled "denny:" must not drop a deny list without a word), and so are
// switches outside the managed layer.
func parseVibingFile(data []byte, path, layer, name string) (*vibingFile, error) {
	f := &vibingFile{rules: session.PolicyFile{Layer: layer, Name: name}}
	if len(bytes.TrimSpace(data)) == 0 {
		return f, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrMalformed, path, err)
	}
	if len(doc.Content) == 0 {
		return f, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: %s: line %d: the file must be a map of keys (allow, ask, deny, mode)", ErrMalformed, path, root.Line)
	}
	bad := func(n *yaml.Node, format string, a ...any) error {
		return fmt.Errorf("%w: %s: line %d: %s", ErrMalformed, path, n.Line, fmt.Sprintf(format, a...))
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "allow", "ask", "deny":
			list, err := ruleList(v)
			if err != nil {
				return nil, bad(v, "%s: %v", k.Value, err)
			}
			switch k.Value {
			case "allow":
				f.rules.Allow = list
			case "ask":
				f.rules.Ask = list
			default:
				f.rules.Deny = list
			}
		case "mode":
			if v.Kind != yaml.ScalarNode || !config.ValidMode(v.Value) {
				return nil, bad(v, "mode must be one of %v", config.Modes)
			}
			f.rules.Mode = v.Value
		case "audit_export_endpoint", "audit_export_protocol", "audit_export_inputs":
			if layer != session.LayerManaged {
				return nil, bad(k, "%s is a managed setting; only /etc/vibing/policy.yaml and /etc/vibing/policy.d/*.yaml may set it", k.Value)
			}
			if err := f.export.set(k.Value, v); err != nil {
				return nil, bad(v, "%v", err)
			}
		default:
			get, ok := switchKeys[k.Value]
			if !ok {
				return nil, bad(k, "unknown key %q (a policy file has allow, ask, deny, mode and, in the managed layer, disable_bypass, disable_always, disable_session_grants, managed_rules_only, audit_export_endpoint, audit_export_protocol, audit_export_inputs)", k.Value)
			}
			if layer != session.LayerManaged {
				return nil, bad(k, "%s is a managed switch; only /etc/vibing/policy.yaml and /etc/vibing/policy.d/*.yaml may set it", k.Value)
			}
			var b bool
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
				return nil, bad(v, "%s must be true or false", k.Value)
			}
			*get(&f.switches) = b
		}
	}
	return f, nil
}

// ruleList reads a YAML list of rule strings.
func ruleList(n *yaml.Node) ([]string, error) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, errors.New("must be a list of rules")
	}
	out := make([]string, 0, len(n.Content))
	for _, it := range n.Content {
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" || it.Value == "" {
			return nil, fmt.Errorf("line %d: every item must be a rule string", it.Line)
		}
		out = append(out, it.Value)
	}
	return out, nil
}
