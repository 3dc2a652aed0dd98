package auditexport

import (
	"strings"
	"testing"
)

// What turns the export on, and what cannot turn a managed one off.
func TestResolve(t *testing.T) {
	managed := Managed{Endpoint: "https://otel.corp.example:4318", File: "/etc/vibing/policy.yaml"}
	tests := []struct {
		name     string
		m        Managed
		inputs   bool // VIBING_AUDIT_EXPORT_INPUTS
		env      map[string]string
		want     Settings
		errorHas string
	}{
		// a person tries to turn the organisation's export off or away
		{"OTEL_SDK_DISABLED does not stop a managed export", managed, false, map[string]string{"OTEL_SDK_DISABLED": "true"},
			Settings{On: true, Endpoint: managed.Endpoint, Protocol: ProtoHTTP, From: managed.File}, ""},
		{"OTEL_LOGS_EXPORTER=none does not stop a managed export", managed, false, map[string]string{"OTEL_LOGS_EXPORTER": "none"},
			Settings{On: true, Endpoint: managed.Endpoint, Protocol: ProtoHTTP, From: managed.File}, ""},
		{"another endpoint in the environment does not move it", managed, false,
			map[string]string{"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"},
			Settings{On: true, Endpoint: managed.Endpoint, Protocol: ProtoHTTP, From: managed.File}, ""},
		{"managed inputs off stay off when the person asks for them", Managed{Endpoint: managed.Endpoint, File: "f", InputsSet: true}, true, nil,
			Settings{On: true, Endpoint: managed.Endpoint, Protocol: ProtoHTTP, From: "f"}, ""},
		{"a protocol the SDK lacks is an error, not a silent drop", Managed{}, false,
			map[string]string{"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			Settings{}, "http/json"},
		// everyday
		{"nothing set: off", Managed{}, false, nil, Settings{}, ""},
		{"an endpoint alone (Claude Code's telemetry off): off", Managed{}, false,
			map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, Settings{}, ""},
		{"OTEL_LOGS_EXPORTER=otlp and an endpoint: on", Managed{}, false,
			map[string]string{"OTEL_LOGS_EXPORTER": "console,otlp", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://c:4318/v1/logs"},
			Settings{On: true, Protocol: ProtoHTTP, From: "environment"}, ""},
		{"the logs protocol wins over the general one", Managed{}, true,
			map[string]string{"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "grpc"},
			Settings{On: true, Protocol: ProtoGRPC, Inputs: true, From: "environment"}, ""},
		{"OTEL_SDK_DISABLED turns a personal export off", Managed{}, false,
			map[string]string{"OTEL_LOGS_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"},
			Settings{}, ""},
		{"a managed protocol", Managed{Endpoint: "http://c:4317", Protocol: ProtoGRPC, Inputs: true, InputsSet: true, File: "f"}, false, nil,
			Settings{On: true, Endpoint: "http://c:4317", Protocol: ProtoGRPC, Inputs: true, From: "f"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.m, tt.inputs, func(k string) string { return tt.env[k] })
			if tt.errorHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errorHas) {
					t.Fatalf("Resolve error = %v, want one naming %q", err, tt.errorHas)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
