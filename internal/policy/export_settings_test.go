package policy_test

import (
	"strings"
	"testing"

	"vibing/internal/policy"
)

// The audit export belongs to the managed layer: an organisation sets the
// endpoint there, and no other layer can set, move or turn it off.
func TestManagedExport(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    policy.Export
		err     string // ManagedExport's error
		loadErr string // the engine's load error (every call refused)
	}{
		// attacks: a person or a project tries to move or drop the export
		{name: "a user file cannot set the endpoint",
			files:   map[string]string{"~/.config/vibing/policy.yaml": "audit_export_endpoint: http://127.0.0.1:1\n"},
			loadErr: "audit_export_endpoint is a managed setting"},
		{name: "a project file cannot turn the inputs on",
			files:   map[string]string{".vibing/policy.yaml": "audit_export_inputs: true\n"},
			loadErr: "audit_export_inputs is a managed setting"},
		{name: "a drop-in cannot override the endpoint of policy.yaml",
			files: map[string]string{"/etc/vibing/policy.yaml": "audit_export_endpoint: https://otel.corp.example:4318\n",
				"/etc/vibing/policy.d/zz.yaml": "audit_export_endpoint: http://127.0.0.1:1\n"},
			want: policy.Export{Endpoint: "https://otel.corp.example:4318", File: "/etc/vibing/policy.yaml"}},
		{name: "an endpoint that is not a URL refuses everything",
			files: map[string]string{"/etc/vibing/policy.yaml": "audit_export_endpoint: otel.corp.example:4318\n"},
			err:   "must be an http:// or https:// URL", loadErr: "must be an http:// or https:// URL"},
		{name: "a file: endpoint refuses everything",
			files: map[string]string{"/etc/vibing/policy.yaml": "audit_export_endpoint: file:///dev/null\n"},
			err:   "must be an http:// or https:// URL"},
		{name: "an unknown protocol refuses everything",
			files: map[string]string{"/etc/vibing/policy.yaml": "audit_export_endpoint: http://c:4317\naudit_export_protocol: http/json\n"},
			err:   "must be http/protobuf or grpc"},
		{name: "inputs must be a boolean",
			files: map[string]string{"/etc/vibing/policy.yaml": "audit_export_inputs: \"yes\"\n"},
			err:   "must be true or false"},
		{name: "an unreadable drop-in folder is an error, not no export",
			files: map[string]string{"/etc/vibing/policy.d": ""}, // a file where the folder is
			err:   "policy folder"},
		// everyday
		{name: "no managed file: no export from the policy"},
		{name: "the endpoint, protocol and inputs",
			files: map[string]string{"/etc/vibing/policy.yaml": "deny: [\"Bash(curl:*)\"]\naudit_export_endpoint: http://otel.corp.example:4317\naudit_export_protocol: grpc\naudit_export_inputs: true\n"},
			want:  policy.Export{Endpoint: "http://otel.corp.example:4317", Protocol: "grpc", Inputs: true, InputsSet: true, File: "/etc/vibing/policy.yaml"}},
		{name: "the endpoint in a drop-in",
			files: map[string]string{"/etc/vibing/policy.d/10-audit.yaml": "audit_export_endpoint: https://otel.corp.example\naudit_export_inputs: false\n"},
			want:  policy.Export{Endpoint: "https://otel.corp.example", InputsSet: true, File: "/etc/vibing/policy.d/10-audit.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			for p, c := range tt.files {
				w.write(p, c)
			}
			got, err := policy.ManagedExport(w.places)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("ManagedExport: %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Fatalf("ManagedExport error = %v, want one mentioning %q", err, tt.err)
			}
			if tt.err == "" {
				if tt.want.File != "" {
					tt.want.File = w.at(tt.want.File)
				}
				if got != tt.want {
					t.Errorf("ManagedExport = %+v, want %+v", got, tt.want)
				}
			}
			ch := w.open("", nil)
			switch {
			case tt.loadErr == "" && tt.err == "" && ch.LoadErr != nil:
				t.Errorf("load error: %v", ch.LoadErr)
			case tt.loadErr != "" && (ch.LoadErr == nil || !strings.Contains(ch.LoadErr.Error(), tt.loadErr)):
				t.Errorf("load error = %v, want one mentioning %q", ch.LoadErr, tt.loadErr)
			}
		})
	}
}
