package auth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"

	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// purposeKey carries what an OAuth request is for through its context:
// the libraries that make the token and registration requests (x/oauth2,
// oauthex) pass the context on, so the recorder can name the step.
type purposeKey struct{}

// purpose says what a request is for and how to show its answer.
type purpose struct {
	what string // "protected resource metadata", "token endpoint", ...
	// document: the answer is a metadata document, shown whole (field
	// "document"); any other status means "not here, try the next one".
	document bool
}

func withPurpose(ctx context.Context, what string, document bool) context.Context {
	return context.WithValue(ctx, purposeKey{}, purpose{what: what, document: document})
}

// recorder is the transport of every OAuth request: each exchange,
// redirects included, becomes an "oauth" row on the timeline with its
// method, path, status and purpose, what was sent and what came back,
// every secret (codes, verifiers, tokens, client secrets, assertions)
// redacted.
type recorder struct {
	base http.RoundTripper
	note noteFunc
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	p, _ := req.Context().Value(purposeKey{}).(purpose)
	if p.what == "" {
		p.what = "OAuth request"
	}
	fields := []mcp.Field{field("url", req.URL.Redacted())}
	if sent := sentBody(req); sent != "" {
		fields = append(fields, field("request", sent))
	}
	if req.Method == http.MethodPost {
		fields = append(fields, field("client_auth", clientAuth(req)))
	}
	start := time.Now()
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		r.note.fail(fmt.Sprintf("%s %s (%s) failed", req.Method, pathOf(req.URL.String()), p.what), err, fields...)
		return nil, err
	}
	// Read what the caller will read (it bounds the body itself) and hand
	// it back unchanged, with whatever lies beyond.
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes))
	resp.Body = readCloser{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	elapsed := roundMillis(time.Since(start))
	head := fmt.Sprintf("%s %s → %d", req.Method, pathOf(req.URL.String()), resp.StatusCode)
	switch {
	case p.document && resp.StatusCode == http.StatusOK:
		r.note.step(fmt.Sprintf("%s (%s)", head, p.what), field("url", req.URL.Redacted()), field("document", compact(body)), field("elapsed", elapsed))
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		r.note.step(fmt.Sprintf("%s (%s: redirected)", head, p.what), append(fields, field("location", redactQuery(resp.Header.Get("Location"))), field("elapsed", elapsed))...)
	case p.document:
		r.note.step(fmt.Sprintf("%s (%s not here)", head, p.what), field("url", req.URL.Redacted()), field("elapsed", elapsed))
	case resp.StatusCode >= 400:
		code, desc := oauthError(body)
		fields = append(fields, field("answer", redactBody(resp.Header, body)), field("error", code), field("error_description", desc), field("elapsed", elapsed))
		summary := fmt.Sprintf("%s (%s)", head, p.what)
		if code != "" {
			summary = fmt.Sprintf("%s (%s: %s)", head, p.what, code)
		}
		r.note.fail(summary, fmt.Errorf("the %s %s answered %s %s %s", p.what, req.URL.Redacted(), resp.Status, code, desc), fields...)
	default:
		r.note.step(fmt.Sprintf("%s (%s)", head, p.what), append(fields, field("answer", redactBody(resp.Header, body)), field("elapsed", elapsed))...)
	}
	return resp, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

func roundMillis(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

// sentBody is the request's form, its secrets redacted, as k=v pairs
// (grant_type first), or a JSON body as sent (a registration request
// carries no secret).
func sentBody(req *http.Request) string {
	if req.GetBody == nil {
		return ""
	}
	rc, err := req.GetBody()
	if err != nil {
		return ""
	}
	defer func() { _ = rc.Close() }()
	raw, _ := io.ReadAll(io.LimitReader(rc, 64<<10))
	if len(raw) == 0 {
		return ""
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return redactJSON(raw)
	}
	form, err := url.ParseQuery(string(raw))
	if err != nil {
		return "(a form that does not parse)"
	}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if a == "grant_type" || b == "grant_type" {
			return boolCmp(b == "grant_type", a == "grant_type")
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		v := strings.Join(form[k], ",")
		if redact.IsSecretField(k) && v != "" {
			v = redacted
		}
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, " ")
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// clientAuth names how the request authenticates the client: HTTP Basic
// (the client id shown, the secret not), a secret or an assertion in the
// body, or none.
func clientAuth(req *http.Request) string {
	if h := req.Header.Get("Authorization"); h != "" {
		scheme, cred, _ := strings.Cut(h, " ")
		if strings.EqualFold(scheme, "basic") {
			if raw, err := base64.StdEncoding.DecodeString(cred); err == nil {
				id, _, _ := strings.Cut(string(raw), ":")
				if id, err := url.QueryUnescape(id); err == nil {
					return AuthMethodBasic + " (client_id " + id + ", secret " + redacted + ")"
				}
			}
		}
		return scheme + " " + redacted
	}
	sent := sentBody(req)
	switch {
	case strings.Contains(sent, "client_assertion="):
		return AuthMethodPrivateKeyJWT
	case strings.Contains(sent, "client_secret="):
		return AuthMethodPost
	}
	return AuthMethodNone
}

// redactBody shows an answer: JSON compacted with its secret members
// redacted, a form likewise; anything else by its size only.
func redactBody(h http.Header, body []byte) string {
	if len(body) == 0 {
		return ""
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	if mt == "application/x-www-form-urlencoded" {
		if _, err := url.ParseQuery(string(body)); err == nil {
			out, _ := redact.Form(body)
			return string(out)
		}
	}
	if json.Valid(body) {
		return redactJSON(body)
	}
	if said := pageMessage(h, body); said != "" {
		return said
	}
	return fmt.Sprintf("(%s of %s)", plural.S(len(body), "byte"), orNone(mt))
}

// redactQuery is a URL with the secrets of its query (an authorization
// code in a redirect) redacted.
func redactQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(not a URL)"
	}
	q := u.Query()
	for k := range q {
		if redact.IsSecretField(k) && q.Get(k) != "" {
			q.Set(k, redacted)
		}
	}
	u.RawQuery = q.Encode()
	return strings.ReplaceAll(u.Redacted(), url.QueryEscape(redacted), redacted)
}

// redactJSON is a JSON body compacted, its secret members (at any depth)
// redacted.
func redactJSON(raw []byte) string {
	if !json.Valid(raw) {
		return "(" + plural.S(len(raw), "byte") + ", not JSON)"
	}
	out, _ := redact.JSON(raw)
	var b bytes.Buffer
	if json.Compact(&b, out) != nil {
		return string(out)
	}
	return b.String()
}

// oauthError reads an OAuth error answer (RFC 6749 §5.2): JSON, or a form.
func oauthError(body []byte) (code, desc string) {
	var e struct {
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	if json.Unmarshal(body, &e) == nil {
		return e.Error, e.ErrorDescription
	}
	if form, err := url.ParseQuery(string(body)); err == nil {
		return form.Get("error"), form.Get("error_description")
	}
	return "", ""
}
