package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// The tap rows: what `mcpscope tap` adds to each request of a real client
// session with server-everything, over stdio and through the HTTP tap
// (Streamable HTTP, answers as SSE). One session through the tap and one
// direct take turns, request by request, so that drift in the machine's
// load hits both alike; the cell is the difference of their medians.

// tapRequests is how many tools/list requests each session sends.
const tapRequests = 2000

// tapRows adds the stdio and HTTP tap rows.
func tapRows(t *table, se []string, env []string) {
	home, err := os.MkdirTemp("", "peerbench-tap-home")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	tapEnv := append(append([]string{}, env...), "HOME="+home)

	stdio := t.row("stdio tap: added per request (tools/list on server-everything)", "≤ 0.1 ms", "")
	direct, derr := startStdioSession(se, env)
	tapped, terr := startStdioSession(append([]string{*mcpscopeBin, "tap", "--name", "peerbench", "--"}, se...), tapEnv)
	d, tp := orNil(direct, derr), orNil(tapped, terr)
	stdio.mcpscope, stdio.ok, stdio.note = tapCell(d, tp, nil, errors.Join(derr, terr))
	closeAll(d, tp)

	httpRow := t.row("HTTP tap: added per request (tools/list on server-everything over Streamable HTTP, SSE answers)", "≤ 0.1 ms", "")
	httpRow.mcpscope, httpRow.ok, httpRow.note = httpTapRow(se, tapEnv)
	for _, name := range t.peers {
		stdio.peers[name] = "n/a: no tap"
		httpRow.peers[name] = "n/a: no tap"
	}
}

// orNil is s as a session, or nil when it failed to start (a nil pointer
// in an interface would not be nil).
func orNil[S session](s S, err error) session {
	if err != nil {
		return nil
	}
	return s
}

// session is one MCP client session whose requests can be timed one at a
// time.
type session interface {
	// request sends tools/list with id and returns once its answer is in.
	request(id int) error
	close()
}

// tapCell alternates requests between the direct and the tapped session
// and says what the tap added.
// A floor, when given, is a third session through the least a proxy can
// be (a bare Go reverse proxy in a process of its own), in the same turns.
func tapCell(direct, tapped, floor session, err error) (cell string, ok bool, note string) {
	if err != nil {
		return "failed: " + err.Error(), false, ""
	}
	sessions := []session{direct, tapped}
	if floor != nil {
		sessions = append(sessions, floor)
	}
	times := make([][]float64, len(sessions))
	floorFailed := ""
	for i := 0; i < tapRequests; i++ {
		for k, s := range sessions {
			if k == 2 && floorFailed != "" {
				continue
			}
			start := time.Now()
			if err := s.request(100 + i); err != nil {
				if k == 2 {
					// The floor is a comparison, not what is measured.
					floorFailed = fmt.Sprintf("the bare proxy failed at request %d: %v", i+1, err)
					continue
				}
				return fmt.Sprintf("failed: %s, request %d: %v", []string{"direct", "through the tap"}[k], i+1, err), false, ""
			}
			times[k] = append(times[k], float64(time.Since(start).Nanoseconds())/1000)
		}
	}
	added := med(times[1]) - med(times[0])
	note = fmt.Sprintf("%d requests each; median %.3f ms direct, %.3f ms through the tap", tapRequests, med(times[0])/1000, med(times[1])/1000)
	switch {
	case floorFailed != "":
		note += "; " + floorFailed
	case floor != nil:
		note += fmt.Sprintf("; a bare Go reverse proxy (httputil.ReverseProxy, in a process of its own) adds %.3f ms in the same turns", (med(times[2])-med(times[0]))/1000)
	}
	return fmt.Sprintf("%.3f ms", added/1000), added <= 100, note
}

func closeAll(ss ...session) {
	for _, s := range ss {
		if s != nil {
			s.close()
		}
	}
}

// stdioSession is a server (or a tap in front of one) spoken to over its
// stdin and stdout.
type stdioSession struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startStdioSession(argv []string, env []string) (*stdioSession, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &stdioSession{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peerbench","version":"0"}}}`
	if err := s.send(init, 1); err != nil {
		s.close()
		return nil, fmt.Errorf("%s: initialize: %w", argv[0], err)
	}
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

func (s *stdioSession) send(line string, id int) error {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		return err
	}
	want := fmt.Sprintf(`"id":%d,`, id)
	want2 := fmt.Sprintf(`"id":%d}`, id)
	deadline := time.AfterFunc(30*time.Second, func() { _ = s.cmd.Process.Kill() })
	defer deadline.Stop()
	for {
		l, err := s.out.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			continue // a long line: its end is what counts
		}
		if err != nil {
			return fmt.Errorf("no answer to id %d: %w", id, err)
		}
		if bytes.Contains(l, []byte(want)) || bytes.Contains(l, []byte(want2)) {
			return nil
		}
	}
}

func (s *stdioSession) request(id int) error {
	return s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id), id)
}

func (s *stdioSession) close() {
	_ = s.in.Close()
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// httpSession is a Streamable HTTP session at one URL.
type httpSession struct {
	client *http.Client
	url    string
	id     string // Mcp-Session-Id
}

func newHTTPSession(url string) (*httpSession, error) {
	s := &httpSession{client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}, url: url}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"peerbench","version":"0"}}}`
	resp, err := s.post(init)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if _, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, fmt.Errorf("initialized: %w", err)
	}
	return s, nil
}

// post sends one message and reads its answer to the end.
func (s *httpSession) post(body string) (*http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, lastLine(string(b)))
	}
	return resp, nil
}

func (s *httpSession) request(id int) error {
	_, err := s.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, id))
	return err
}

func (s *httpSession) close() { s.client.CloseIdleConnections() }

// httpTapRow starts server-everything over Streamable HTTP and a tap in
// front of it, and alternates a session through each.
func httpTapRow(se []string, env []string) (cell string, ok bool, note string) {
	srv, err := startListener(env, func(addr string) ([]string, []string) {
		_, port, _ := strings.Cut(addr, ":")
		return append(append([]string{}, se...), "streamableHttp"), []string{"PORT=" + port}
	})
	if err != nil {
		return "failed: server-everything over HTTP: " + err.Error(), false, ""
	}
	defer srv.stop()
	upstream := "http://" + srv.addr + "/mcp"
	tap, err := startListener(env, func(addr string) ([]string, []string) {
		return []string{*mcpscopeBin, "tap", "--name", "peerbench-http", "--listen", addr, upstream}, nil
	})
	if err != nil {
		return "failed: the tap: " + err.Error(), false, ""
	}
	defer tap.stop()
	// The floor: peerbench itself as a bare reverse proxy.
	self, err := os.Executable()
	if err != nil {
		return "failed: " + err.Error(), false, ""
	}
	floor, err := startListener(env, func(addr string) ([]string, []string) {
		return []string{self}, []string{proxyVar + "=" + addr + " " + upstream}
	})
	if err != nil {
		return "failed: the bare proxy: " + err.Error(), false, ""
	}
	defer floor.stop()
	direct, derr := newHTTPSession(upstream)
	tapped, terr := newHTTPSession("http://" + tap.addr + "/mcp")
	bare, ferr := newHTTPSession("http://" + floor.addr + "/mcp")
	d, tp, fl := orNil(direct, derr), orNil(tapped, terr), orNil(bare, ferr)
	defer closeAll(d, tp, fl)
	return tapCell(d, tp, fl, errors.Join(derr, terr, ferr))
}

// listener is a process serving on a loopback address of its own.
type listener struct {
	addr string
	cmd  *exec.Cmd
}

// startListener starts, in a process group of its own, the command (and
// the variables added to env) that argv gives for a free loopback
// address, and waits until something listens there.
func startListener(env []string, argv func(addr string) (args, extraEnv []string)) (*listener, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	args, extra := argv(addr)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(append([]string{}, env...), extra...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	l := &listener{addr: addr, cmd: cmd}
	if err := waitListening(addr); err != nil {
		l.stop()
		return nil, err
	}
	return l, nil
}

// stop ends the process group: SIGTERM (a tap then closes its record),
// SIGKILL two seconds later.
func (l *listener) stop() {
	pgid := l.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = l.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

// proxyVar, when set to "ADDR URL", makes peerbench a bare reverse proxy
// listening on ADDR in front of URL: the floor of the HTTP tap row.
const proxyVar = "PEERBENCH_PROXY"

// bareProxy serves a plain httputil.ReverseProxy, flushing every write
// (as an event stream needs), until it is killed.
func bareProxy(spec string) int {
	addr, upstream, _ := strings.Cut(spec, " ")
	target, err := url.Parse(upstream)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	p := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target); r.Out.URL.Path = target.Path },
		Transport:     tr,
		FlushInterval: -1,
	}
	fmt.Fprintln(os.Stderr, http.ListenAndServe(addr, p))
	return 1
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func waitListening(addr string) error {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after 20 s", addr)
}
