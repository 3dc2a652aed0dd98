// Command otelcol is a minimal OpenTelemetry Collector for vibing's tests,
// built from the collector's own modules: the OTLP receiver (gRPC and
// HTTP) and one exporter, jsonl, that appends each batch of logs it gets
// to a file as one line of OTLP JSON. It lives in a module of its own so
// nothing of it reaches vibing-agent.
//
//	otelcol --config /path/to/config.yaml
package main

import (
	"context"
	"fmt"
	"os"
	"sync"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/provider/fileprovider"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"
)

func main() {
	info := component.BuildInfo{Command: "otelcol", Description: "vibing's test collector", Version: "test"}
	set := otelcol.CollectorSettings{
		BuildInfo: info,
		Factories: factories,
		ConfigProviderSettings: otelcol.ConfigProviderSettings{
			ResolverSettings: confmap.ResolverSettings{
				ProviderFactories: []confmap.ProviderFactory{fileprovider.NewFactory()},
				DefaultScheme:     "file",
			},
		},
	}
	if err := otelcol.NewCommand(set).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func factories() (otelcol.Factories, error) {
	var f otelcol.Factories
	var err error
	if f.Receivers, err = otelcol.MakeFactoryMap(otlpreceiver.NewFactory()); err != nil {
		return f, err
	}
	if f.Exporters, err = otelcol.MakeFactoryMap(newJSONLFactory()); err != nil {
		return f, err
	}
	f.Telemetry = otelconftelemetry.NewFactory()
	return f, nil
}

// jsonlConfig is the exporter's configuration: the file it appends to.
type jsonlConfig struct {
	Path string `mapstructure:"path"`
}

func newJSONLFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("jsonl"),
		func() component.Config { return &jsonlConfig{} },
		exporter.WithLogs(createJSONL, component.StabilityLevelDevelopment))
}

type jsonlLogs struct {
	component.StartFunc
	component.ShutdownFunc
	consumer.Logs
}

var fileMu sync.Mutex

func createJSONL(_ context.Context, _ exporter.Settings, c component.Config) (exporter.Logs, error) {
	path := c.(*jsonlConfig).Path
	if path == "" {
		return nil, fmt.Errorf("jsonl: no path")
	}
	var m plog.JSONMarshaler
	logs, err := consumer.NewLogs(func(_ context.Context, ld plog.Logs) error {
		b, err := m.MarshalLogs(ld)
		if err != nil {
			return err
		}
		fileMu.Lock()
		defer fileMu.Unlock()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		if _, err := f.Write(append(b, '\n')); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		return nil, err
	}
	return jsonlLogs{Logs: logs}, nil
}
