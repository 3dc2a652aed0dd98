package policy

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	"gopkg.in/yaml.v3"

	"vibing/internal/session"
)

// Export is the audit export the managed layer sets (SPEC §16): where the
// rows go and whether tool inputs go as they are. An organisation sets it
// in /etc/vibing; the environment cannot turn it off or move it.
type Export struct {
	Endpoint  string `json:"endpoint,omitempty"` // the collector's base URL
	Protocol  string `json:"protocol,omitempty"` // http/protobuf or grpc; "" for the environment's
	Inputs    bool   `json:"inputs,omitempty"`
	InputsSet bool   `json:"-"`
	File      string `json:"file,omitempty"` // the file that set Endpoint
}

func (e *Export) set(key string, v *yaml.Node) error {
	if v.Kind != yaml.ScalarNode {
		return fmt.Errorf("%s must be a single value", key)
	}
	switch key {
	case "audit_export_endpoint":
		u, err := url.Parse(v.Value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("audit_export_endpoint must be an http:// or https:// URL with a host, got %q", v.Value)
		}
		e.Endpoint = v.Value
	case "audit_export_protocol":
		if v.Value != "http/protobuf" && v.Value != "grpc" {
			return fmt.Errorf("audit_export_protocol must be http/protobuf or grpc, got %q", v.Value)
		}
		e.Protocol = v.Value
	default:
		var b bool
		if v.Tag != "!!bool" || v.Decode(&b) != nil {
			return errors.New("audit_export_inputs must be true or false")
		}
		e.Inputs, e.InputsSet = b, true
	}
	return nil
}

// ManagedExport reads the audit export settings of the managed layer
// (/etc/vibing/policy.yaml, then policy.d/*.yaml in order; the first file
// that sets a key wins). A managed file that cannot be read or parsed is an
// error: the caller must not export less than the organisation asked.
func ManagedExport(pl Places) (Export, error) {
	pl = pl.withDefaults()
	var out Export
	paths := []string{filepath.Join(pl.Managed, "policy.yaml")}
	dropIns, err := folderFiles(filepath.Join(pl.Managed, "policy.d"), "*.yaml", "policy folder")
	if err != nil {
		return out, err
	}
	for _, p := range append(paths, dropIns...) {
		data, found, err := readCandidate(candidate{layer: session.LayerManaged, path: p, kind: "vibing"})
		if err != nil {
			return out, err
		}
		if !found {
			continue
		}
		f, err := parseVibingFile(data, p, session.LayerManaged, p)
		if err != nil {
			return out, err
		}
		if out.Endpoint == "" && f.export.Endpoint != "" {
			out.Endpoint, out.File = f.export.Endpoint, p
		}
		if out.Protocol == "" {
			out.Protocol = f.export.Protocol
		}
		if !out.InputsSet && f.export.InputsSet {
			out.Inputs, out.InputsSet = f.export.Inputs, true
		}
	}
	return out, nil
}
