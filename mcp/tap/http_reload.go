package tap

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/mcp/watch"
)

// Hot reload behind an HTTP tap (tap --listen ADDR --watch PATH --build
// CMD URL): the tap runs no server, so the build is what replaces it (a
// script that restarts a container, a dev server's own rebuild). After the
// build, the tap reconnects upstream: it replays each client session's
// initialize (its body and headers, the tap's own id) and
// notifications/initialized, and from then on passes the client's
// Mcp-Session-Id to the server as the new session's, and the new
// session's back to the client as the one it knows. The client keeps its
// session; the record has the restart and every message the tap wrote
// (Frame.ByTap). The client's requests in flight at the restart end as
// the old server's connections do (the proxy's 502); the tap has no
// stream of its own to the client to send list_changed on.

// httpReload is an HTTP tap's side of hot reload.
type httpReload struct {
	h    *httpTap
	opts *ReloadOptions

	mu sync.Mutex
	// sessions are the client sessions by the id the client knows, with
	// what opened them.
	sessions map[string]*httpSession
	// up maps a client's session id to the server's current one; down the
	// other way.
	up, down map[string]string
	nextID   int
}

// httpSession is what opened one client session: its initialize.
type httpSession struct {
	body   []byte
	header http.Header // the request's headers (Authorization kept in memory only)
}

func newHTTPReload(h *httpTap, o *ReloadOptions) *httpReload {
	if o.StartTimeout <= 0 {
		o.StartTimeout = 10 * time.Second
	}
	return &httpReload{h: h, opts: o, sessions: map[string]*httpSession{}, up: map[string]string{}, down: map[string]string{}}
}

// opened remembers a session the server opened for the client (the answer
// to its initialize named its id).
func (r *httpReload) opened(x *exchange, resp *http.Response) {
	sid := resp.Header.Get("Mcp-Session-Id")
	if x.method != mcp.MethodInitialize || sid == "" || x.body == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, mapped := r.down[sid]; mapped {
		return
	}
	r.sessions[sid] = &httpSession{body: x.body, header: x.header}
}

// toServer gives the server its id for the client's session.
func (r *httpReload) toServer(hd http.Header) {
	sid := hd.Get("Mcp-Session-Id")
	if sid == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if to, ok := r.up[sid]; ok {
		hd.Set("Mcp-Session-Id", to)
	}
}

// toClient gives the client the id it knows for the server's session.
func (r *httpReload) toClient(hd http.Header) {
	sid := hd.Get("Mcp-Session-Id")
	if sid == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if to, ok := r.down[sid]; ok {
		hd.Set("Mcp-Session-Id", to)
	}
}

// restart reconnects every client session to the server the build left.
func (r *httpReload) restart(ctx context.Context, round watch.Round) {
	r.h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportRestart, Summary: round.Summary(),
		Fields: []mcp.Field{{Key: "cause", Value: round.Cause.String()}}}})
	r.mu.Lock()
	sessions := make(map[string]*httpSession, len(r.sessions))
	for sid, s := range r.sessions {
		sessions[sid] = s
	}
	r.mu.Unlock()
	for clientSID, s := range sessions {
		newSID, err := r.reopen(ctx, s)
		if err != nil {
			r.h.note("could not reopen the client's session upstream after the restart: " + err.Error())
			continue
		}
		r.mu.Lock()
		if old, ok := r.up[clientSID]; ok {
			delete(r.down, old)
		}
		r.up[clientSID], r.down[newSID] = newSID, clientSID
		r.mu.Unlock()
		r.h.note("the client's session now goes to the restarted server's", mcp.Field{Key: "client's Mcp-Session-Id", Value: clientSID},
			mcp.Field{Key: "server's Mcp-Session-Id", Value: newSID})
	}
}

// reopen replays a session's initialize and initialized upstream, waiting
// for the server to be back (a restart takes a moment), and returns the
// new session's id.
func (r *httpReload) reopen(ctx context.Context, s *httpSession) (string, error) {
	r.mu.Lock()
	r.nextID++
	id := strconv.Quote(tapIDPrefix + strconv.Itoa(r.nextID))
	r.mu.Unlock()
	body := withID(s.body, id)
	deadline := time.Now().Add(r.opts.StartTimeout)
	for {
		sid, version, err := r.post(ctx, s.header, "", "", body, true)
		if err == nil {
			_, _, err = r.post(ctx, s.header, sid, version, []byte(`{"jsonrpc":"2.0","method":"`+mcp.NotifyInitialized+`"}`), false)
			return sid, err
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return "", err
		}
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// withID is a request with its id replaced.
func withID(body []byte, id string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	jsonview.Each(body, func(k []byte, v json.RawMessage) bool {
		if jsonview.Key(k) == "id" {
			v = json.RawMessage(id)
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(jsonview.Key(k)))
		b.WriteByte(':')
		b.Write(v)
		return true
	})
	b.WriteByte('}')
	return b.Bytes()
}

// post sends one message of the tap's own upstream and records it and its
// answer; it returns the session id and protocol version the answer gave.
func (r *httpReload) post(ctx context.Context, from http.Header, sid, version string, body []byte, answered bool) (string, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.h.target.String(), bytes.NewReader(body))
	if err != nil {
		return "", "", err
	}
	for _, k := range []string{"Authorization", "Accept", "Content-Type", "User-Agent"} {
		if v := from.Get(k); v != "" {
			req.Header.Set(k, v)
		}
	}
	if req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", err
	}
	defer func() { _ = resp.Body.Close() }()
	stream := "POST " + r.h.target.Path + " (the tap's own, after a restart)"
	r.h.rec.push(chunk{kind: chunkFrame, dir: mcp.Outbound, data: bytes.Clone(body), at: time.Now(), byTap: true, stream: stream})
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if resp.StatusCode/100 != 2 {
		return "", "", fmt.Errorf("%s answered %s", r.h.target.Redacted(), resp.Status)
	}
	if !answered {
		return sid, version, nil
	}
	msg := raw
	if strings.HasPrefix(strings.ToLower(resp.Header.Get("Content-Type")), "text/event-stream") {
		msg = firstSSEData(raw)
	}
	r.h.rec.push(chunk{kind: chunkFrame, dir: mcp.Inbound, data: bytes.Clone(msg), at: time.Now(), byTap: true, stream: stream})
	res, ok := jsonview.Member(msg, "result")
	if !ok {
		return "", "", fmt.Errorf("the restarted server did not accept the client's initialize: %s", msg)
	}
	v, _ := jsonview.Member(res, "protocolVersion")
	version, _ = jsonview.String(v)
	return resp.Header.Get("Mcp-Session-Id"), version, nil
}

// firstSSEData is the first event's data in an event stream's bytes.
func firstSSEData(b []byte) []byte {
	var data []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			if data != nil {
				data = append(data, '\n')
			}
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && data != nil:
			return data
		}
	}
	return data
}

// note is a row of the tap's in the record.
func (h *httpTap) note(summary string, fields ...mcp.Field) {
	h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: "tap", Summary: summary, Fields: fields}})
}

// runHTTPReload runs the watch and build loop of an HTTP tap until ctx
// ends.
func runHTTPReload(ctx context.Context, r *httpReload) (stop func(), err error) {
	w, err := watch.New(r.opts.Watch)
	if err != nil {
		return nil, err
	}
	loopCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	loop := &watch.Loop{Watcher: w, Build: r.opts.Build, Dir: r.opts.Dir, Restart: r.restart,
		Note: func(what string) {
			r.h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportWatch, Summary: what}})
		},
		Failed: func(round watch.Round) {
			b := round.Build
			fields := []mcp.Field{{Key: "command", Value: b.Command}, {Key: "cause", Value: round.Cause.String()}}
			for _, l := range strings.Split(strings.TrimRight(string(b.Output), "\n"), "\n") {
				fields = append(fields, mcp.Field{Value: l})
			}
			r.h.rec.push(chunk{kind: chunkEvent, ev: mcp.TransportEvent{Time: time.Now(), Kind: mcp.TransportBuild,
				Summary: buildFailedSummary(b, "the tap goes on with the server as it is"), Err: b.Err, Fields: fields}})
		}}
	go func() { defer close(done); loop.Run(loopCtx) }()
	return func() { cancel(); <-done; _ = w.Close() }, nil
}
