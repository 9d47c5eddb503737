package export

import (
	"encoding/json"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the parts
// mcpscope knows. Sizes it does not know are -1, as the spec says.
type harLog struct {
	Log harBody `json:"log"`
}

type harBody struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Pages   []harPage  `json:"pages,omitempty"`
	Entries []harEntry `json:"entries"`
	Comment string     `json:"comment,omitempty"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// harPage is a client session of a capture that carried several: its
// HTTP requests are the page's entries.
type harPage struct {
	StartedDateTime string   `json:"startedDateTime"`
	ID              string   `json:"id"`
	Title           string   `json:"title"`
	PageTimings     struct{} `json:"pageTimings"`
}

type harEntry struct {
	Pageref         string      `json:"pageref,omitempty"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	Comment         string      `json:"comment,omitempty"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []harNV      `json:"cookies"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	PostData    *harPostData `json:"postData,omitempty"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int        `json:"bodySize"`
}

type harContent struct {
	Size     int    `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Comment  string `json:"comment,omitempty"`
}

type harTimings struct {
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
}

// Fields of an HTTP transport event that are not headers.
var notHeaders = map[string]bool{"method": true, "url": true, "status": true, "elapsed": true,
	"Message-Kind": true, "Message-Method": true, "Message-Id": true, "error": true}

// HAR writes the session's HTTP exchanges as HAR 1.2. Each POST carries
// the JSON-RPC message it sent; its response content is the message that
// answered it (for an SSE stream, the JSON-RPC answer, with a comment).
func HAR(w io.Writer, s *Session, version string) error {
	out := harLog{Log: harBody{Version: "1.2", Creator: harCreator{Name: "mcpscope", Version: version}, Entries: []harEntry{}}}
	if len(s.HTTP) == 0 {
		out.Log.Comment = "the session has no HTTP exchanges (a stdio session?)"
	}
	for _, c := range s.Conversations {
		out.Log.Pages = append(out.Log.Pages, harPage{StartedDateTime: c.Start.UTC().Format(time.RFC3339Nano),
			ID: pageID(c.N), Title: c.String()})
	}
	var notes []string
	for _, ev := range s.HTTP {
		if !isRequest(ev) {
			// A note about the traffic (a tap's answer cut before its
			// end) is no exchange: HAR has no entry without a request,
			// so it goes in the log's comment, not away.
			note := ev.Summary
			if ev.Err != nil {
				note += " — " + ev.Err.Error()
			}
			notes = append(notes, ev.Time.UTC().Format(time.RFC3339Nano)+" "+note)
			continue
		}
		e := s.harEntry(ev)
		if ev.ClientSession != 0 && s.conversation(ev.ClientSession) != nil {
			e.Pageref = pageID(ev.ClientSession)
		}
		out.Log.Entries = append(out.Log.Entries, e)
	}
	if len(notes) > 0 {
		out.Log.Comment = strings.TrimPrefix(out.Log.Comment+"; ", "; ") + "not exchanges: " + strings.Join(notes, "; ")
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// isRequest reports whether an HTTP transport event is an exchange (it
// names its method), not a note about the traffic.
func isRequest(ev mcp.TransportEvent) bool {
	for _, f := range ev.Fields {
		if f.Key == "method" {
			return f.Value != ""
		}
	}
	return false
}

func (s *Session) harEntry(ev mcp.TransportEvent) harEntry {
	get := func(k string) string {
		for _, f := range ev.Fields {
			if f.Key == k {
				return f.Value
			}
		}
		return ""
	}
	elapsed, _ := time.ParseDuration(get("elapsed"))
	ms := float64(elapsed.Microseconds()) / 1000
	e := harEntry{StartedDateTime: ev.Time.Add(-elapsed).UTC().Format(time.RFC3339Nano), Time: ms,
		Timings: harTimings{Send: 0, Wait: ms, Receive: 0}, Comment: ev.Summary}
	e.Request = harRequest{Method: get("method"), URL: s.urlOf(get("url"), get("path")), HTTPVersion: "HTTP/1.1",
		Cookies: []harNV{}, Headers: []harNV{}, QueryString: []harNV{}, HeadersSize: -1, BodySize: 0}
	e.Response = harResponse{HTTPVersion: "HTTP/1.1", Cookies: []harNV{}, Headers: []harNV{},
		Content: harContent{Size: -1, MimeType: "x-unknown"}, HeadersSize: -1, BodySize: -1}
	if u, err := url.Parse(e.Request.URL); err == nil {
		for k, vs := range u.Query() {
			for _, v := range vs {
				e.Request.QueryString = append(e.Request.QueryString, harNV{Name: k, Value: v})
			}
		}
	}
	status := get("status")
	if code, text, ok := strings.Cut(status, " "); ok || status != "" {
		e.Response.Status, _ = strconv.Atoi(code)
		e.Response.StatusText = text
	}
	for _, f := range ev.Fields {
		switch {
		case notHeaders[f.Key]:
		case strings.HasPrefix(f.Key, "response "):
			e.Response.Headers = append(e.Response.Headers, harNV{Name: strings.TrimPrefix(f.Key, "response "), Value: f.Value})
		case f.Key == "Content-Type" && status != "":
			e.Response.Headers = append(e.Response.Headers, harNV{Name: f.Key, Value: f.Value})
			e.Response.Content.MimeType = f.Value
		default:
			e.Request.Headers = append(e.Request.Headers, harNV{Name: f.Key, Value: f.Value})
		}
	}
	if ev.Err != nil {
		e.Comment += " — " + ev.Err.Error()
	}
	// The JSON-RPC message this request carried, and its answer.
	if id, method := get("Message-Id"), get("Message-Method"); e.Request.Method == "POST" && (id != "" || method != "") {
		req := s.findOutbound(id, method, ev.Time, ev.ClientSession)
		if req != nil {
			e.Request.PostData = &harPostData{MimeType: "application/json", Text: string(req.Raw)}
			e.Request.BodySize = req.Size()
			if resp := s.answerTo(req.Seq); resp != nil {
				e.Response.Content.Text = string(resp.Raw)
				e.Response.Content.Size = resp.Size()
				if strings.HasPrefix(e.Response.Content.MimeType, "text/event-stream") {
					e.Response.Content.Comment = "the JSON-RPC answer that came on this SSE stream"
				}
			}
		}
	}
	return e
}

// urlOf is a request's URL: as recorded, or (a tap records the path the
// client asked for) where the tap sent it: the server's URL for the tap's
// root, else that path on the server's address.
func (s *Session) urlOf(recorded, path string) string {
	if recorded != "" || path == "" {
		return recorded
	}
	base := s.Header.URL
	if base == "" {
		base = s.Header.Target
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return path
	}
	if path == "/" {
		return u.String()
	}
	p, err := url.Parse(path)
	if err != nil {
		return path
	}
	return u.ResolveReference(p).String()
}

func pageID(session int) string { return "client-session-" + strconv.Itoa(session) }

// findOutbound is the last outbound frame with this id (or, for a
// notification, method) sent no later than t, in client session session
// when the capture numbers them (two sessions use the same ids).
func (s *Session) findOutbound(id, method string, t time.Time, session int) *mcp.Frame {
	var best *mcp.Frame
	for _, it := range s.Timeline {
		for _, f := range []*mcp.Frame{it.Request, it.Single, it.Response} {
			if f == nil || f.Dir != mcp.Outbound || f.Time.After(t) || (session != 0 && f.ClientSession != session) {
				continue
			}
			if (id != "" && string(f.ID) == id) || (id == "" && f.Method == method) {
				if best == nil || f.Seq > best.Seq {
					best = f
				}
			}
		}
	}
	return best
}

func (s *Session) answerTo(seq int64) *mcp.Frame {
	for _, it := range s.Timeline {
		if it.Request != nil && it.Request.Seq == seq {
			return it.Response
		}
	}
	return nil
}
