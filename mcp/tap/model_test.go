package tap

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcpscope/mcpscope/mcp/tap/modelapi"
)

// upstreamLog is a fake model API's memory of one request: its exact
// body and headers, and the exact bytes it answered.
type upstreamLog struct {
	mu     sync.Mutex
	bodies [][]byte
	header []http.Header
	paths  []string
	sent   bytes.Buffer
}

// startModelTap runs a model tap in front of upstream and returns its
// base URL, and a stop that ends it and gives the capture's path.
func startModelTap(t *testing.T, upstream string, p Provider) (base string, stop func() string) {
	t.Helper()
	state := privateDirs(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- RunModel(ctx, ModelOptions{Provider: p, Upstream: upstream, Listen: "127.0.0.1:0",
			Recording: Recording{NoHub: true}, Ready: func(u string) { ready <- u }})
	}()
	select {
	case base = <-ready:
	case err := <-done:
		t.Fatalf("RunModel: %v", err)
	}
	stopped := false
	stop = func() string {
		if !stopped {
			stopped = true
			cancel()
			if err := <-done; err != nil {
				t.Errorf("RunModel: %v", err)
			}
		}
		files, _ := filepath.Glob(filepath.Join(state, "*.jsonl"))
		if len(files) != 1 {
			t.Fatalf("captures: %v, want one", files)
		}
		return files[0]
	}
	t.Cleanup(func() { stop() })
	return base, stop
}

// sseEvents are what the fake upstream streams: CRLF and LF line ends, a
// comment, a multi-line data field and bytes that are not UTF-8, so that
// a proxy that re-encoded or re-framed anything would be seen.
var sseEvents = []string{
	"event: message_start\r\ndata: {\"type\":\"message_start\",\"message\":{\"model\":\"claude-x\",\"usage\":{\"input_tokens\":1234,\"output_tokens\":1}}}\r\n\r\n",
	": a comment the client ignores\n\n",
	"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_9\",\"name\":\"mcp__wx__get_weather\",\"input\":{}}}\n\n",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\"}}\n\n",
	"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Paris\\\"}\"}}\n\n",
	"event: ping\ndata: \xff\xfe not UTF-8\ndata: second line\n\n",
	"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":42}}\n\n",
	"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
}

// The model tap passes the client's request to the API and the API's
// streamed answer to the client byte for byte, each event as the API
// flushes it, and records the tools, the call, the result and the usage.
func TestModelTapIsByteExactBothWaysAndStreams(t *testing.T) {
	var up upstreamLog
	next := make(chan struct{}) // the test lets the upstream send its next event
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		up.mu.Lock()
		up.bodies, up.header, up.paths = append(up.bodies, body), append(up.header, r.Header.Clone()), append(up.paths, r.URL.RequestURI())
		up.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		for i, ev := range sseEvents {
			if i > 0 {
				<-next
			}
			up.mu.Lock()
			up.sent.WriteString(ev)
			up.mu.Unlock()
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("anthropic")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)

	// Odd but valid JSON: spacing, a key order no encoder would choose, an
	// escaped character and a trailing newline must all arrive as sent.
	reqBody := []byte("{ \"stream\":true, \"model\" : \"claude-x\",\n\"tools\":[{\"name\":\"mcp__wx__get_weather\",\"description\":\"Weather.\",\"input_schema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}},\"defer_loading\":true}],\n" +
		"\"messages\":[{\"role\":\"user\",\"content\":\"weather? \\u00e9\"},{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"mcp__wx__get_weather\",\"input\":{}}]},{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"sunny\"}]}]}\n")
	req, _ := http.NewRequest("POST", base+"/v1/messages?beta=true", bytes.NewReader(reqBody))
	req.Header.Set("X-Api-Key", "sk-ant-api03-RECOGNISABLE-KEY-0001")
	req.Header.Set("Anthropic-Version", "2023-06-01")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Each event reaches the client before the upstream sends the next:
	// the tap flushes as it goes.
	var got bytes.Buffer
	br := bufio.NewReader(resp.Body)
	for i, ev := range sseEvents {
		buf := make([]byte, len(ev))
		if _, err := io.ReadFull(br, buf); err != nil {
			t.Fatalf("event %d: %v (got so far %q)", i, err, got.String())
		}
		got.Write(buf)
		if string(buf) != ev {
			t.Fatalf("event %d reached the client as %q, the API sent %q", i, buf, ev)
		}
		if i < len(sseEvents)-1 {
			next <- struct{}{}
		}
	}
	rest, _ := io.ReadAll(br)
	got.Write(rest)
	_ = resp.Body.Close()
	up.mu.Lock()
	sent, bodies, hdrs, paths := up.sent.Bytes(), up.bodies, up.header, up.paths
	up.mu.Unlock()
	if !bytes.Equal(got.Bytes(), sent) {
		t.Errorf("the client got %d bytes, the API sent %d:\n%q\n%q", got.Len(), len(sent), got.Bytes(), sent)
	}
	if len(bodies) != 1 || !bytes.Equal(bodies[0], reqBody) {
		t.Fatalf("the API got %q, the client sent %q", bodies, reqBody)
	}
	if paths[0] != "/v1/messages?beta=true" {
		t.Errorf("the API was asked for %s", paths[0])
	}
	if k := hdrs[0].Get("X-Api-Key"); k != "sk-ant-api03-RECOGNISABLE-KEY-0001" {
		t.Errorf("the API got x-api-key %q: the client's key must reach it", k)
	}
	if v := hdrs[0].Get("X-Forwarded-For"); v != "" {
		t.Errorf("the tap added X-Forwarded-For %q", v)
	}

	file := stop()
	head, reqs, err := ReadModel(file)
	if err != nil {
		t.Fatal(err)
	}
	if head.Target != "model anthropic" || len(reqs) != 1 {
		t.Fatalf("header %+v, %d requests", head, len(reqs))
	}
	r := reqs[0]
	if r.API != modelapi.AnthropicMessages || r.Status != 200 || !r.Stream || r.Model != "claude-x" {
		t.Errorf("request recorded as %+v", r)
	}
	if len(r.Tools) != 1 || r.Tools[0].Name != "mcp__wx__get_weather" || !r.Tools[0].Deferred || string(r.Tools[0].Schema) != `{"type":"object","properties":{"city":{"type":"string"}}}` {
		t.Errorf("tools recorded as %+v", r.Tools)
	}
	if len(r.Calls) != 1 || r.Calls[0].ID != "toolu_9" || string(r.Calls[0].Arguments) != `{"city":"Paris"}` {
		t.Errorf("calls recorded as %+v", r.Calls)
	}
	if len(r.Results) != 1 || r.Results[0].ID != "toolu_1" || string(r.Results[0].Content) != `"sunny"` {
		t.Errorf("results recorded as %+v", r.Results)
	}
	if r.Usage == nil || r.Usage.Input != 1234 || r.Usage.Output != 42 {
		t.Errorf("usage recorded as %+v", r.Usage)
	}
	if r.RequestBytes != int64(len(reqBody)) || r.ResponseBytes != int64(len(sent)) {
		t.Errorf("sizes recorded %d and %d, want %d and %d", r.RequestBytes, r.ResponseBytes, len(reqBody), len(sent))
	}
	raw, _ := os.ReadFile(file)
	if bytes.Contains(raw, []byte("RECOGNISABLE")) {
		t.Errorf("the API key is in the capture:\n%s", raw)
	}
}

// A JSON answer passes unchanged too, a request the API never answers is
// the tap's 502 and recorded as the tap's error, and a result passed back
// again in a later request is recorded once.
func TestModelTapJSONAnswersAndLocalFailure(t *testing.T) {
	answer := []byte(`{"id":"chatcmpl-1","model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"mcp__wx__get_weather","arguments":"{\"city\":\"Oslo\"}"}}]}}],"usage":{"prompt_tokens":77,"completion_tokens":9,"total_tokens":86}}`)
	var up upstreamLog
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		up.mu.Lock()
		up.bodies, up.paths = append(up.bodies, body), append(up.paths, r.URL.RequestURI())
		up.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("openai")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	if !strings.HasSuffix(base, "/v1") {
		t.Errorf("the OpenAI base URL is %s: its clients append /chat/completions to a base ending in /v1", base)
	}
	body := `{"model":"gpt-x","tools":[{"type":"function","function":{"name":"mcp__wx__get_weather","description":"W","parameters":{"type":"object"}}}],"messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"call_0"}]},{"role":"tool","tool_call_id":"call_0","content":"rain"}]}`
	for range 2 {
		resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if !bytes.Equal(got, answer) {
			t.Fatalf("the client got %q, the API sent %q", got, answer)
		}
	}
	up.mu.Lock()
	if up.paths[0] != "/v1/chat/completions" {
		t.Errorf("the API was asked for %s", up.paths[0])
	}
	up.mu.Unlock()
	_ = srv.Close()
	resp, err := http.Post(base+"/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(msg), "mcpscope tap: the model API's answer could not be passed on") {
		t.Errorf("an unreachable API gave the client %d %q", resp.StatusCode, msg)
	}
	_, reqs, err := ReadModel(stop())
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 3 {
		t.Fatalf("%d requests recorded, want 3", len(reqs))
	}
	if len(reqs[0].Results) != 1 || reqs[0].Results[0].ID != "call_0" || len(reqs[1].Results) != 0 {
		t.Errorf("results: first %+v, second %+v: the result passed back twice is recorded once", reqs[0].Results, reqs[1].Results)
	}
	if c := reqs[0].Calls; len(c) != 1 || c[0].Name != "mcp__wx__get_weather" || string(c[0].Arguments) != `"{\"city\":\"Oslo\"}"` {
		t.Errorf("calls %+v", c)
	}
	if u := reqs[0].Usage; u == nil || u.Input != 77 || u.Output != 9 {
		t.Errorf("usage %+v", u)
	}
	if r := reqs[2]; r.Error == "" || r.Status != 0 || r.Usage != nil {
		t.Errorf("the failed request is recorded as %+v: the tap's error, no status, no usage", r)
	}
}

// The model tap guards as the HTTP tap does: a request whose Host is not
// the tap's address, or whose Origin is a web page's, is refused with 403
// and never reaches the API; the refusal is recorded.
func TestModelTapGuardRefusesForeignHostAndOrigin(t *testing.T) {
	var up upstreamLog
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.mu.Lock()
		up.paths = append(up.paths, r.URL.RequestURI())
		up.mu.Unlock()
		_, _ = io.WriteString(w, "{}")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("anthropic")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	port := base[strings.LastIndexByte(base, ':')+1:]
	for _, c := range []struct{ host, origin string }{
		{"attacker.example:" + port, ""},
		{"127.0.0.1:" + port, "https://attacker.example"},
		{"127.0.0.1:" + port, "http://127.0.0.1:9999"},
	} {
		req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(`{}`))
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host %s Origin %q: %d, want 403", c.host, c.origin, resp.StatusCode)
		}
	}
	// The tap's own address passes.
	resp, err := http.Post(base+"/v1/messages", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	up.mu.Lock()
	paths := up.paths
	up.mu.Unlock()
	if resp.StatusCode != 200 || len(paths) != 1 {
		t.Errorf("the tap's own address: %d, and the API got %d requests (want 200 and 1)", resp.StatusCode, len(paths))
	}
	_, reqs, err := ReadModel(stop())
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, r := range reqs {
		if r.Refused != "" {
			refused++
		}
	}
	if refused != 3 || len(reqs) != 4 {
		t.Errorf("%d requests recorded, %d refused; want 4 and 3", len(reqs), refused)
	}
}

// recognisableKey is an API key no capture may hold.
const recognisableKey = "AIzaSy-RECOGNISABLE-0123456789"

// No API key reaches the capture, wherever the client put it: x-api-key,
// Authorization, x-goog-api-key, or ?key= in the URL (Gemini's).
func TestModelTapRedactsAPIKeys(t *testing.T) {
	var up upstreamLog
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up.mu.Lock()
		up.paths = append(up.paths, r.URL.RequestURI())
		up.header = append(up.header, r.Header.Clone())
		up.mu.Unlock()
		w.Header().Set("Set-Cookie", "session="+recognisableKey)
		_, _ = io.WriteString(w, `{"candidates":[],"usageMetadata":{"promptTokenCount":1}}`)
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("gemini")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	for _, h := range []string{"X-Api-Key", "Authorization", "X-Goog-Api-Key", ""} {
		u := base + "/v1beta/models/gemini-2.5-pro:generateContent"
		if h == "" {
			u += "?key=" + recognisableKey + "&alt=json"
		}
		req, _ := http.NewRequest("POST", u, strings.NewReader(`{"contents":[]}`))
		switch h {
		case "Authorization":
			req.Header.Set(h, "Bearer "+recognisableKey)
		case "":
		default:
			req.Header.Set(h, recognisableKey)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	up.mu.Lock()
	if len(up.paths) != 4 || !strings.Contains(up.paths[3], "key="+recognisableKey) || up.header[2].Get("X-Goog-Api-Key") != recognisableKey {
		t.Errorf("the API did not get the keys as the client sent them: %v %v", up.paths, up.header)
	}
	up.mu.Unlock()
	file := stop()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("RECOGNISABLE")) {
		t.Errorf("an API key is in the capture:\n%s", raw)
	}
	for _, want := range []string{`"X-Goog-Api-Key","Value":"[redacted]"`, `"Authorization","Value":"Bearer [redacted]"`, `key=[redacted]`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("the capture does not say %s was sent:\n%s", want, raw)
		}
	}
}

// A WebSocket (the Responses API offers one) passes through the model
// tap both ways; the capture says its messages were not read.
func TestModelTapPassesAWebSocketThrough(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }()
		typ, msg, err := c.Read(r.Context())
		if err != nil {
			return
		}
		_ = c.Write(r.Context(), typ, append([]byte("echo: "), msg...))
		_, _, _ = c.Read(r.Context()) // until the client closes
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("openai")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	//nolint:bodyclose // websocket.Dial closes the body itself
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/responses", nil)
	if err != nil {
		t.Fatalf("dialling through the tap: %v", err)
	}
	if err := c.Write(ctx, websocket.MessageText, []byte(`{"type":"response.create"}`)); err != nil {
		t.Fatal(err)
	}
	_, got, err := c.Read(ctx)
	if err != nil || string(got) != `echo: {"type":"response.create"}` {
		t.Fatalf("through the tap: %q, %v", got, err)
	}
	_ = c.Close(websocket.StatusNormalClosure, "")
	_, reqs, err := ReadModel(stop())
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Status != http.StatusSwitchingProtocols || len(reqs[0].Problems) != 1 || !strings.Contains(reqs[0].Problems[0], "pass through unread") {
		t.Errorf("recorded %+v", reqs)
	}
}

// An answer the proxy cannot pass on (a switch to a protocol the client
// did not ask for) is the tap's 502, never an empty answer, and the
// capture says it is the tap's failure.
func TestModelTapFailureIsNeverAnEmptyAnswer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		_, _ = buf.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: something-else\r\nConnection: Upgrade\r\n\r\n")
		_ = buf.Flush()
		_ = c.Close()
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("openai")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	req, _ := http.NewRequest("GET", base+"/responses", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "mcpscope tap:") {
		t.Errorf("the client got %d %q, want the tap's 502", resp.StatusCode, body)
	}
	_, reqs, err := ReadModel(stop())
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Error == "" {
		t.Errorf("recorded %+v, want the tap's error", reqs)
	}
}

// A gzip-encoded answer reaches the client as the API encoded it, and
// the capture reads it decoded.
func TestModelTapReadsAGzipAnswer(t *testing.T) {
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = io.WriteString(zw, strings.Join(sseEvents, ""))
	_ = zw.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(zipped.Bytes())
	})}
	go func() { _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close() }()
	p, _ := FindProvider("anthropic")
	base, stop := startModelTap(t, "http://"+ln.Addr().String(), p)
	req, _ := http.NewRequest("POST", base+"/v1/messages", strings.NewReader(`{"stream":true}`))
	req.Header.Set("Accept-Encoding", "gzip") // set by hand: Go's client then leaves the body encoded
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if !bytes.Equal(got, zipped.Bytes()) {
		t.Errorf("the client got %d bytes, the API sent %d gzipped", len(got), zipped.Len())
	}
	_, reqs, err := ReadModel(stop())
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 1 || reqs[0].Usage == nil || reqs[0].Usage.Output != 42 || len(reqs[0].Calls) != 1 || len(reqs[0].Problems) != 0 {
		t.Errorf("recorded %+v", reqs)
	}
}
