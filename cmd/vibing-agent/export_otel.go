//go:build otel

package main

import (
	"context"

	"vibing/internal/auditexport"
	"vibing/internal/auditexport/otlp"
)

// The vibing-agent-otel build (make: -tags otel) holds the OpenTelemetry
// sender; run, rpc and audit export of vibing-agent-full start it when the
// export is on (audit_export.go).
func init() {
	newSender = func(ctx context.Context, s auditexport.Settings) (auditexport.Sender, func(), error) {
		x, err := otlp.New(ctx, s)
		if err != nil {
			return nil, nil, err
		}
		return x, func() { _ = x.Shutdown(context.Background()) }, nil
	}
}
