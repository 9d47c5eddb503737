package telemetry

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// jsonClient is an HTTP client that reaches no network: the OTLP
// exporter's requests are written to w as OTLP/JSON lines (the encoding
// the collector's file exporter writes), so a file export goes through the
// same SDK code as a live one.
func jsonClient(w io.Writer) *http.Client {
	return &http.Client{Transport: &jsonTransport{w: w}}
}

type jsonTransport struct {
	mu sync.Mutex
	w  io.Writer
}

func (t *jsonTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, err
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	line, err := otlpJSON(&msg)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	_, err = t.w.Write(append(line, '\n'))
	t.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/x-protobuf"}},
		Body: io.NopCloser(bytes.NewReader(nil)), Request: req}, nil
}

// otlpJSON encodes a request as OTLP/JSON says: lowerCamelCase names, enums
// as numbers, and trace and span ids as hex (protobuf's JSON would write
// them in base64).
func otlpJSON(msg *coltracepb.ExportTraceServiceRequest) ([]byte, error) {
	for _, rs := range msg.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				sp.TraceId, sp.SpanId, sp.ParentSpanId = hexID(sp.TraceId), hexID(sp.SpanId), hexID(sp.ParentSpanId)
				for _, l := range sp.GetLinks() {
					l.TraceId, l.SpanId = hexID(l.TraceId), hexID(l.SpanId)
				}
			}
		}
	}
	raw, err := protojson.MarshalOptions{UseEnumNumbers: true}.Marshal(msg)
	if err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	// protojson writes bytes as base64; the ids were made their hex text's
	// bytes above, so their base64 is decoded back to that text here.
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("OTLP/JSON: %w", err)
	}
	unbase64IDs(v)
	return json.Marshal(v)
}

func hexID(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return []byte(hex.EncodeToString(b))
}

var idKeys = map[string]bool{"traceId": true, "spanId": true, "parentSpanId": true}

func unbase64IDs(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && idKeys[k] {
				var b []byte
				if err := json.Unmarshal([]byte(`"`+s+`"`), &b); err == nil {
					v[k] = string(b)
				}
				continue
			}
			unbase64IDs(x)
		}
	case []any:
		for _, x := range v {
			unbase64IDs(x)
		}
	}
}
