// Package auditexport sends the audit rows to an OpenTelemetry collector:
// one OTLP log record per row, over HTTP/protobuf or gRPC, from the SQLite
// log, which stays the record. A row is marked exported once the collector
// accepted it; rows not yet accepted are sent on the next pass, oldest
// first, so a collector that is down or slow loses nothing and never holds
// up a decision (decisions only write SQLite; a pass runs beside them).
//
// This package holds the settings, the passes and their loop; the sender
// that speaks OTLP is internal/auditexport/otlp, linked only into the
// vibing-agent-otel build, which run, rpc and audit export start when the
// export is on. check and hook never export.
package auditexport

import (
	"fmt"
	"net/url"
	"strings"
)

// EventName names every record (Claude Code's own is tool_decision).
const EventName = "vibing.tool_decision"

// Protocols the export speaks.
const (
	ProtoHTTP = "http/protobuf"
	ProtoGRPC = "grpc"
)

// Managed is what the managed policy sets (internal/policy.ManagedExport).
type Managed struct {
	Endpoint  string // the collector's base URL; "" when the managed layer sets none
	Protocol  string // ProtoHTTP or ProtoGRPC; "" for the environment's
	Inputs    bool   // audit_export_inputs
	InputsSet bool   // the managed layer set audit_export_inputs (a person cannot change it)
	File      string // the managed file that set the endpoint
}

// Settings say whether and where rows are exported.
type Settings struct {
	On       bool
	Endpoint string // "" : the exporter reads OTEL_EXPORTER_OTLP_(LOGS_)ENDPOINT itself
	Protocol string
	// Inputs sends each row's action (the command line, the path) as it is;
	// off, only its SHA-256 goes.
	Inputs bool
	// From says who turned the export on: the managed file, or "environment".
	From string
}

// Resolve decides the settings from the managed policy, the person's
// config (audit_export_inputs) and the standard OpenTelemetry variables.
// A managed endpoint cannot be turned off or moved by the environment
// (OTEL_SDK_DISABLED, OTEL_LOGS_EXPORTER=none, another endpoint); without
// one, the export is on when OTEL_LOGS_EXPORTER names otlp and an OTLP
// endpoint is set, as for Claude Code's own events.
func Resolve(m Managed, configInputs bool, getenv func(string) string) (Settings, error) {
	var s Settings
	proto := func() string {
		for _, k := range []string{"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
			if v := strings.TrimSpace(getenv(k)); v != "" {
				return v
			}
		}
		return ProtoHTTP
	}
	s.Inputs = configInputs
	if m.InputsSet {
		s.Inputs = m.Inputs
	}
	switch {
	case m.Endpoint != "":
		s.On, s.Endpoint, s.From = true, m.Endpoint, m.File
		s.Protocol = m.Protocol
		if s.Protocol == "" {
			s.Protocol = proto()
		}
	case strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true"):
		return s, nil
	case hasOTLP(getenv("OTEL_LOGS_EXPORTER")) &&
		(getenv("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""):
		s.On, s.From, s.Protocol = true, "environment", proto()
	default:
		return s, nil
	}
	if s.Protocol != ProtoHTTP && s.Protocol != ProtoGRPC {
		return s, fmt.Errorf("audit export: protocol %q is not one vibing speaks (%s or %s)", s.Protocol, ProtoHTTP, ProtoGRPC)
	}
	if s.Endpoint != "" {
		if err := CheckEndpoint(s.Endpoint); err != nil {
			return s, err
		}
	}
	return s, nil
}

// CheckEndpoint says why u is not a collector URL (http or https, a host).
func CheckEndpoint(u string) error {
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return fmt.Errorf("audit export: endpoint %q must be an http:// or https:// URL with a host", u)
	}
	return nil
}

func hasOTLP(v string) bool {
	for _, e := range strings.Split(v, ",") {
		if strings.TrimSpace(e) == "otlp" {
			return true
		}
	}
	return false
}
