package main

import (
	"os/exec"
	"strings"
	"testing"
)

// otelPackages are the audit export's sender: the OpenTelemetry SDK, its
// OTLP exporters and gRPC. Only vibing-agent-otel links them; every run
// and rpc (vibing-agent-full) and every check and hook (vibing-agent)
// would otherwise initialise them at start, export on or off.
var otelPackages = []string{"go.opentelemetry.io/otel/sdk/log", "go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc",
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp", "google.golang.org/grpc", "vibing/internal/auditexport/otlp"}

func TestOnlyTheOtelBuildLinksTheSDK(t *testing.T) {
	deps := func(tags string) string {
		args := []string{"list", "-deps"}
		if tags != "" {
			args = append(args, "-tags", tags)
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		return "\n" + string(out)
	}
	full, lean, otel := deps(""), deps("lean"), deps("otel")
	for _, p := range otelPackages {
		if !strings.Contains(otel, "\n"+p+"\n") {
			t.Errorf("the otel build does not link %s: this test no longer looks at the right packages", p)
		}
		if strings.Contains(full, "\n"+p+"\n") {
			t.Errorf("the full build links %s", p)
		}
		if strings.Contains(lean, "\n"+p+"\n") {
			t.Errorf("the lean build links %s", p)
		}
	}
}
