package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// collector is the test OpenTelemetry Collector of tests/otelcol (the
// collector's own OTLP receiver, and an exporter that appends what it
// receives to a file as OTLP JSON), run as a process of its own.
type collector struct {
	t          *testing.T
	dir        string
	out        string // the file the records land in
	grpc, http string // host:port of the receiver
	cmd        *exec.Cmd
}

var (
	collectorOnce sync.Once
	collectorBin  string
	collectorErr  error
)

// collectorBinary builds tests/otelcol once per cache key (its go.mod,
// go.sum and sources): a cold build takes about a minute, a cached one
// nothing.
func collectorBinary(t *testing.T) string {
	t.Helper()
	collectorOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		src := filepath.Join(filepath.Dir(file), "..", "otelcol")
		h := sha256.New()
		for _, name := range []string{"go.mod", "go.sum", "main.go"} {
			data, err := os.ReadFile(filepath.Join(src, name))
			if err != nil {
				collectorErr = err
				return
			}
			fmt.Fprintf(h, "%s %d\n", name, len(data))
			h.Write(data)
		}
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		collectorBin = filepath.Join(cache, "vibing-test", "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
		if _, err := os.Stat(collectorBin); err == nil {
			return
		}
		start := time.Now()
		build := exec.Command("go", "build", "-o", collectorBin+".tmp", ".")
		build.Dir = src
		if out, err := build.CombinedOutput(); err != nil {
			collectorErr = fmt.Errorf("build the test collector: %v\n%s", err, out)
			return
		}
		collectorErr = os.Rename(collectorBin+".tmp", collectorBin)
		fmt.Fprintf(os.Stderr, "built the test collector in %s\n", time.Since(start).Round(time.Second))
	})
	if collectorErr != nil {
		t.Fatal(collectorErr)
	}
	return collectorBin
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startCollector starts a collector on two free ports.
func startCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{t: t, dir: t.TempDir(), grpc: freePort(t), http: freePort(t)}
	c.out = filepath.Join(c.dir, "logs.jsonl")
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc: {endpoint: %q}
      http: {endpoint: %q}
exporters:
  jsonl: {path: %q}
service:
  telemetry:
    logs: {level: warn}
    metrics: {level: none}
  pipelines:
    logs: {receivers: [otlp], exporters: [jsonl]}
`, c.grpc, c.http, c.out)
	if err := os.WriteFile(filepath.Join(c.dir, "config.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c.start()
	t.Cleanup(c.stop)
	return c
}

// start runs the collector and waits until both ports take connections.
func (c *collector) start() {
	c.t.Helper()
	c.cmd = exec.Command(collectorBinary(c.t), "--config", filepath.Join(c.dir, "config.yaml"))
	log, err := os.OpenFile(filepath.Join(c.dir, "collector.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	defer log.Close()
	c.cmd.Stdout, c.cmd.Stderr = log, log
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for _, addr := range []string{c.grpc, c.http} {
		for {
			conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
			if err == nil {
				conn.Close()
				break
			}
			if time.Now().After(deadline) {
				data, _ := os.ReadFile(filepath.Join(c.dir, "collector.log"))
				c.t.Fatalf("the collector did not listen on %s: %s", addr, data)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// stop kills the collector (as a crash or an outage would).
func (c *collector) stop() {
	if c.cmd == nil || c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
	c.cmd = nil
}

// record is one log record received: its attributes as strings, and the
// resource's under "resource.".
type record map[string]string

// records reads every record the collector has written so far.
func (c *collector) records() []record {
	c.t.Helper()
	data, err := os.ReadFile(c.out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		c.t.Fatal(err)
	}
	type kv struct {
		Key   string         `json:"key"`
		Value map[string]any `json:"value"`
	}
	flat := func(dst record, prefix string, kvs []kv) {
		for _, a := range kvs {
			for _, v := range a.Value {
				dst[prefix+a.Key] = fmt.Sprint(v)
			}
		}
	}
	var out []record
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var doc struct {
			ResourceLogs []struct {
				Resource struct {
					Attributes []kv `json:"attributes"`
				} `json:"resource"`
				ScopeLogs []struct {
					LogRecords []struct {
						EventName  string `json:"eventName"`
						Attributes []kv   `json:"attributes"`
					} `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal([]byte(line), &doc); err != nil {
			c.t.Fatalf("collector output %q: %v", line, err)
		}
		for _, rl := range doc.ResourceLogs {
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					r := record{"event_name": lr.EventName}
					flat(r, "resource.", rl.Resource.Attributes)
					flat(r, "", lr.Attributes)
					out = append(out, r)
				}
			}
		}
	}
	return out
}

// waitRecords waits until pred holds for the records received.
func (c *collector) waitRecords(what string, pred func([]record) bool) []record {
	c.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		rs := c.records()
		if pred(rs) {
			return rs
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector never got %s; it got %d records: %v", what, len(rs), rs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// exportEnv points the standard OpenTelemetry variables at c.
func (c *collector) exportEnv(t *testing.T, protocol string) {
	t.Helper()
	addr := c.http
	if protocol == "grpc" {
		addr = c.grpc
	}
	t.Setenv("OTEL_LOGS_EXPORTER", "otlp")
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://"+addr)
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "team=platform,deployment.environment=test")
}
