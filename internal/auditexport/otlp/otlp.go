// Package otlp is the audit export's sender: each row one OTLP log record
// through the OpenTelemetry Go SDK's own exporters (HTTP/protobuf or gRPC).
// Only the vibing-agent-otel build links it (its packages cost start-up
// time and memory in every process that links them).
package otlp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/user"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"

	"vibing/internal/audit"
	"vibing/internal/auditexport"
	"vibing/internal/auditrow"
	"vibing/internal/version"
)

// sendTimeout bounds one batch's round trip to the collector.
const sendTimeout = 10 * time.Second

// Exporter turns rows into log records and sends them.
type Exporter struct {
	s      auditexport.Settings
	exp    sdklog.Exporter
	lp     *sdklog.LoggerProvider
	logger otellog.Logger
	held   *holder
	user   string
	mu     sync.Mutex // one batch at a time
}

// holder is the logger provider's processor: it keeps the records emitted
// for one batch, which Send hands to the exporter itself, so the answer
// of the collector (accepted or not) is known for that batch.
type holder struct{ recs []sdklog.Record }

func (h *holder) Enabled(context.Context, sdklog.EnabledParameters) bool { return true }
func (h *holder) OnEmit(_ context.Context, r *sdklog.Record) error {
	h.recs = append(h.recs, r.Clone())
	return nil
}
func (h *holder) Shutdown(context.Context) error   { return nil }
func (h *holder) ForceFlush(context.Context) error { return nil }

// New makes an exporter for s (s.On). It does not connect: the first Send
// does.
func New(ctx context.Context, s auditexport.Settings) (*Exporter, error) {
	var exp sdklog.Exporter
	var err error
	switch s.Protocol {
	case auditexport.ProtoGRPC:
		opts := []otlploggrpc.Option{otlploggrpc.WithTimeout(sendTimeout), otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false})}
		if s.Endpoint != "" {
			opts = append(opts, otlploggrpc.WithEndpointURL(s.Endpoint))
		}
		exp, err = otlploggrpc.New(ctx, opts...)
	default:
		opts := []otlploghttp.Option{otlploghttp.WithTimeout(sendTimeout), otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false})}
		if s.Endpoint != "" {
			opts = append(opts, otlploghttp.WithEndpointURL(LogsURL(s.Endpoint)))
		}
		exp, err = otlploghttp.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("audit export: %w", err)
	}
	host, _ := os.Hostname()
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "vibing"), attribute.String("service.version", version.Version),
			attribute.String("host.name", host)),
		resource.WithOSType(),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME
	)
	if err != nil && res == nil {
		return nil, fmt.Errorf("audit export: %w", err)
	}
	h := &holder{}
	lp := sdklog.NewLoggerProvider(sdklog.WithResource(res), sdklog.WithProcessor(h))
	x := &Exporter{s: s, exp: exp, lp: lp, held: h, logger: lp.Logger("vibing", otellog.WithInstrumentationVersion(version.Version))}
	if u, err := user.Current(); err == nil {
		x.user = u.Username
	}
	return x, nil
}

// LogsURL adds the logs path to a base URL that has no path, as the
// standard OTEL_EXPORTER_OTLP_ENDPOINT does.
func LogsURL(base string) string {
	u, err := url.Parse(base)
	if err != nil || (u.Path != "" && u.Path != "/") {
		return base
	}
	u.Path = "/v1/logs"
	return u.String()
}

// Send sends rows as one batch and returns nil once the collector
// accepted them.
func (x *Exporter) Send(ctx context.Context, rows []audit.Row) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.held.recs = x.held.recs[:0]
	for _, r := range rows {
		x.logger.Emit(ctx, x.record(r))
	}
	recs := x.held.recs
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	if err := x.exp.Export(ctx, recs); err != nil {
		return fmt.Errorf("audit export to the collector: %w", err)
	}
	return nil
}

// Shutdown releases the exporter's connections.
func (x *Exporter) Shutdown(ctx context.Context) error {
	return errors.Join(x.exp.Shutdown(ctx), x.lp.Shutdown(ctx))
}

// Attributes of a record: Claude Code's tool_decision names where they
// mean the same, vibing's own under vibing.
func (x *Exporter) record(r audit.Row) otellog.Record {
	var rec otellog.Record
	rec.SetEventName(auditexport.EventName)
	rec.SetTimestamp(r.Time)
	rec.SetObservedTimestamp(time.Now())
	sev, sevText := otellog.SeverityInfo, "INFO"
	if o := auditrow.Outcome(r.Decision); o == auditrow.Deny || o == auditrow.AskDenied || o == auditrow.AskTimeout {
		sev, sevText = otellog.SeverityWarn, "WARN"
	}
	rec.SetSeverity(sev)
	rec.SetSeverityText(sevText)
	rec.SetBody(attribute.StringValue(fmt.Sprintf("%s %s: %s", r.Tool, r.Decision, r.Rule)))
	source := r.Source
	if r.Layer != "" {
		source = r.Layer
	}
	writer := r.Via // run, hook, mention
	switch {
	case writer != "":
	case r.Source == "hook" || r.Source == "mention": // a row written before the via column
		writer = r.Source
	default:
		writer = "run"
	}
	kv := []attribute.KeyValue{
		attribute.String("event.name", auditexport.EventName),
		attribute.String("event.timestamp", r.Time.UTC().Format(time.RFC3339Nano)),
		attribute.String("session.id", r.SessionID),
		attribute.String("tool_name", r.Tool),
		attribute.String("tool_use_id", r.ToolUseID),
		attribute.String("decision", r.Decision),
		attribute.String("source", source),
		attribute.String("user.name", x.user),
		attribute.String("vibing.rule", r.Rule),
		attribute.String("vibing.action_sha256", digest(r.Action)),
		attribute.String("vibing.input_sha256", r.InputSHA256),
		attribute.Bool("vibing.edited", r.Edited),
		attribute.String("vibing.mode", r.Mode),
		attribute.String("vibing.chat", r.Chat),
		attribute.String("vibing.cwd", r.Cwd),
		attribute.String("vibing.writer", writer),
		attribute.String("vibing.version", version.Version),
		attribute.Int64("vibing.row_id", r.ID),
		attribute.String("vibing.row_hash", r.Hash),
	}
	if r.Resumed != nil {
		kv = append(kv, attribute.Bool("vibing.resumed", *r.Resumed))
	}
	// the action and the reason sentence (which quotes the command or the
	// path) carry the tool's input: they go only when the inputs do
	if x.s.Inputs {
		kv = append(kv, attribute.String("vibing.action", r.Action), attribute.String("vibing.reason", r.Reason))
	} else {
		kind, _, _ := cutKind(r.Action)
		kv = append(kv, attribute.String("vibing.action_kind", kind))
	}
	rec.AddAttributes(kv...)
	return rec
}

// cutKind splits an action "tool:Bash:npm test" into its kind "tool:Bash"
// and the rest (the input it names).
func cutKind(action string) (kind, rest string, ok bool) {
	i := strings.IndexByte(action, ':')
	if i < 0 {
		return "", action, false
	}
	j := strings.IndexByte(action[i+1:], ':')
	if j < 0 {
		return action, "", true
	}
	return action[:i+1+j], action[i+2+j:], true
}

func digest(s string) string {
	if s == "" {
		return ""
	}
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
