// Package chromium drives a headless Chromium through the DevTools protocol, as
// much as mcpscope needs of it: open a page, list its frames, evaluate an
// expression in one of them (in an isolated world, so the page's own
// scripts cannot see or change it), and take a screenshot. It speaks the
// protocol's JSON over the WebSocket Chromium opens, with no other
// dependency, and knows nothing of MCP.
package chromium

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Find is the Chromium to run: flag when given (it must exist), else the
// first of chromium, chromium-browser, google-chrome, google-chrome-stable
// on PATH. The error says what was looked for.
func Find(flag string) (string, error) {
	if flag != "" {
		p, err := exec.LookPath(flag)
		if err != nil {
			return "", fmt.Errorf("--browser %s: %w", flag, err)
		}
		return p, nil
	}
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no Chromium on PATH (looked for %s); give one with --browser PATH", strings.Join(names, ", "))
}

// Browser is a running headless Chromium.
type Browser struct {
	cmd  *exec.Cmd
	dir  string // the throwaway profile
	conn *websocket.Conn

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan reply
	events  []func(method, session string, params json.RawMessage)
	done    chan struct{}
	err     error
}

type reply struct {
	Result json.RawMessage
	Err    error
}

// Launch starts Chromium headless with a fresh profile and connects to it.
func Launch(ctx context.Context, path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "mcpscope-chromium-")
	if err != nil {
		return nil, fmt.Errorf("chromium profile: %w", err)
	}
	args := []string{"--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
		"--disable-background-networking", "--disable-extensions", "--disable-sync", "--mute-audio",
		"--hide-scrollbars", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir=" + dir, "about:blank"}
	if os.Geteuid() == 0 {
		args = append([]string{"--no-sandbox"}, args...) // Chromium refuses its sandbox as root
	}
	cmd := exec.Command(path, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	b := &Browser{cmd: cmd, dir: dir, pending: map[int64]chan reply{}, done: make(chan struct{})}
	endpoint := make(chan string, 1)
	var tail strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "DevTools listening on "); ok {
				endpoint <- strings.TrimSpace(u)
			} else if tail.Len() < 4096 {
				tail.WriteString(line + "\n")
			}
		}
		close(endpoint)
		_, _ = io.Copy(io.Discard, stderr)
	}()
	var url string
	select {
	case u, ok := <-endpoint:
		if !ok {
			b.kill()
			return nil, fmt.Errorf("%s exited before it listened for DevTools: %s", path, strings.TrimSpace(tail.String()))
		}
		url = u
	case <-time.After(30 * time.Second):
		b.kill()
		return nil, fmt.Errorf("%s did not listen for DevTools within 30 s", path)
	case <-ctx.Done():
		b.kill()
		return nil, ctx.Err()
	}
	conn, _, err := websocket.Dial(ctx, url, nil) //nolint:bodyclose // the upgrade's answer has no body to close
	if err != nil {
		b.kill()
		return nil, fmt.Errorf("connect to DevTools: %w", err)
	}
	conn.SetReadLimit(256 << 20) // a full-page screenshot in base64
	b.conn = conn
	go b.read()
	return b, nil
}

func (b *Browser) kill() {
	if b.cmd.Process != nil {
		_ = b.cmd.Process.Kill()
		_ = b.cmd.Wait()
	}
	_ = os.RemoveAll(b.dir)
}

// Close ends Chromium and removes its profile.
func (b *Browser) Close() error {
	if b.conn != nil {
		_ = b.conn.CloseNow()
	}
	b.kill()
	return nil
}

func (b *Browser) read() {
	defer close(b.done)
	for {
		_, data, err := b.conn.Read(context.Background())
		if err != nil {
			b.mu.Lock()
			b.err = err
			for id, ch := range b.pending {
				ch <- reply{Err: fmt.Errorf("DevTools connection lost: %w", err)}
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID        int64           `json:"id"`
			Method    string          `json:"method"`
			SessionID string          `json:"sessionId"`
			Params    json.RawMessage `json:"params"`
			Result    json.RawMessage `json:"result"`
			Error     *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.Method != "" {
			handlers := append([]func(string, string, json.RawMessage){}, b.events...)
			b.mu.Unlock()
			for _, h := range handlers {
				h(m.Method, m.SessionID, m.Params)
			}
			continue
		}
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch == nil {
			continue
		}
		if m.Error != nil {
			ch <- reply{Err: fmt.Errorf("DevTools: %s", m.Error.Message)}
		} else {
			ch <- reply{Result: m.Result}
		}
	}
}

// call sends one command (to a target's session when session is set) and
// decodes its result into out (when not nil).
func (b *Browser) call(ctx context.Context, session, method string, params any, out any) error {
	b.mu.Lock()
	if b.err != nil {
		b.mu.Unlock()
		return fmt.Errorf("DevTools connection lost: %w", b.err)
	}
	b.nextID++
	id := b.nextID
	ch := make(chan reply, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if params == nil {
		msg["params"] = map[string]any{}
	}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if err := b.conn.Write(ctx, websocket.MessageText, data); err != nil {
		return fmt.Errorf("DevTools %s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Err != nil {
			return fmt.Errorf("%s: %w", method, r.Err)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
		return fmt.Errorf("DevTools %s: %w", method, ctx.Err())
	}
}

// Page is one tab.
type Page struct {
	b       *Browser
	target  string
	session string
}

// Open opens url in a new tab of the given size and waits for its load event.
func (b *Browser) Open(ctx context.Context, url string, width, height int) (*Page, error) {
	var t struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call(ctx, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &t); err != nil {
		return nil, err
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call(ctx, "", "Target.attachToTarget", map[string]any{"targetId": t.TargetID, "flatten": true}, &s); err != nil {
		return nil, err
	}
	p := &Page{b: b, target: t.TargetID, session: s.SessionID}
	loaded := make(chan struct{}, 1)
	b.mu.Lock()
	b.events = append(b.events, func(method, session string, _ json.RawMessage) {
		if session == p.session && method == "Page.loadEventFired" {
			select {
			case loaded <- struct{}{}:
			default:
			}
		}
	})
	b.mu.Unlock()
	if err := b.call(ctx, p.session, "Page.enable", nil, nil); err != nil {
		return nil, err
	}
	if err := b.call(ctx, p.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		return nil, err
	}
	var nav struct {
		ErrorText string `json:"errorText"`
	}
	if err := b.call(ctx, p.session, "Page.navigate", map[string]any{"url": url}, &nav); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, fmt.Errorf("open %s: %s", url, nav.ErrorText)
	}
	select {
	case <-loaded:
	case <-ctx.Done():
		return nil, fmt.Errorf("open %s: no load event: %w", url, ctx.Err())
	}
	return p, nil
}

// Frame is one frame of a page, depth first from the top.
type Frame struct {
	ID, URL string
	Depth   int
}

// Frames lists the page's frames, depth first.
func (p *Page) Frames(ctx context.Context) ([]Frame, error) {
	type node struct {
		Frame struct {
			ID  string `json:"id"`
			URL string `json:"url"`
		} `json:"frame"`
		ChildFrames []json.RawMessage `json:"childFrames"`
	}
	var tree struct {
		FrameTree json.RawMessage `json:"frameTree"`
	}
	if err := p.b.call(ctx, p.session, "Page.getFrameTree", nil, &tree); err != nil {
		return nil, err
	}
	var out []Frame
	var walk func(raw json.RawMessage, depth int) error
	walk = func(raw json.RawMessage, depth int) error {
		var n node
		if err := json.Unmarshal(raw, &n); err != nil {
			return err
		}
		out = append(out, Frame{ID: n.Frame.ID, URL: n.Frame.URL, Depth: depth})
		for _, c := range n.ChildFrames {
			if err := walk(c, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(tree.FrameTree, 0)
}

// Eval evaluates expression in an isolated world of the frame and returns
// its value as JSON (a promise is awaited). A thrown exception is an error.
func (p *Page) Eval(ctx context.Context, frameID, expression string) (json.RawMessage, error) {
	var world struct {
		ExecutionContextID int64 `json:"executionContextId"`
	}
	if err := p.b.call(ctx, p.session, "Page.createIsolatedWorld",
		map[string]any{"frameId": frameID, "worldName": "mcpscope"}, &world); err != nil {
		return nil, err
	}
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.b.call(ctx, p.session, "Runtime.evaluate", map[string]any{"expression": expression,
		"contextId": world.ExecutionContextID, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return nil, err
	}
	if r.ExceptionDetails != nil {
		d := r.ExceptionDetails.Exception.Description
		if d == "" {
			d = r.ExceptionDetails.Text
		}
		return nil, errors.New("the page threw: " + d)
	}
	return r.Result.Value, nil
}

// Screenshot is a PNG of the page's viewport.
func (p *Page) Screenshot(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.b.call(ctx, p.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close closes the tab.
func (p *Page) Close(ctx context.Context) error {
	return p.b.call(ctx, "", "Target.closeTarget", map[string]any{"targetId": p.target}, nil)
}
