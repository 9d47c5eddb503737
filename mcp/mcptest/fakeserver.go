// Package mcptest holds test helpers for mcp and its users. Its fake server
// is a scriptable, deliberately misbehaving MCP server for tests. Tests re-execute their own binary with MCPSCOPE_FAKE_SERVER set
// to a comma-separated list of behaviours, and the TestMain of the package
// calls [MaybeRun] first, so each test gets a real subprocess speaking stdio.
//
// It is hand-written JSON on purpose: an SDK server cannot be made to break
// the rules, and breaking the rules is the point.
package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/mcp/demo"
)

// EnvVar selects the behaviours; when it is unset MaybeRun returns at once.
const EnvVar = "MCPSCOPE_FAKE_SERVER"

// PIDFileVar names a file the fake server writes its process id to, when
// set, so a test can check that the server did not outlive mcpscope.
const PIDFileVar = "MCPSCOPE_FAKE_PIDFILE"

// MaybeRun turns the process into the fake server when EnvVar is set, with
// the comma-separated behaviours it names, and exits when the client hangs
// up. Behaviours:
//
//	crash-on-call      tools/call: write two stderr lines and exit with status 7
//	hang-on-call       tools/call: never answer; log notifications/cancelled to stderr
//	bad-version        initialize: answer protocolVersion 1999-01-01
//	noise              after initialize: a log line on stdout, invalid JSON, a batch,
//	                   a response to an unknown id, a split pretty-printed object
//	big-line           tools/call answers with a text of $MCPSCOPE_FAKE_BIG bytes
//	big-json           tools/call answers with a text of about $MCPSCOPE_FAKE_BIG bytes
//	                   of JSON (an array of records, as a query's rows), escaped
//	repeat-cursor      tools/list always returns nextCursor "again"
//	paginate           tools/list returns two pages
//	ask                after notifications/initialized, ping the client and ask roots/list
//	progress           tools/call with a progressToken sends three progress notifications
//	silent             never answer anything (a legacy server deaf to server/discover)
//	modern             answer server/discover like a 2026-07-28 server
//	exit-at-start      print a stderr line and exit 3 before reading anything
//	script             follow the JSON [Script] in $MCPSCOPE_FAKE_SCRIPT (see script.go)
//	deaf               after notifications/initialized, never read stdin again and
//	                   stay alive (the client's writes block once the pipe is full)
//	ignore-term        ignore SIGTERM and SIGINT (only SIGKILL ends it)
//	close-stdout       tools/call: close stdout and keep running (reading stdin until it ends)
//	stop-on-call       tools/call: stop itself with SIGSTOP (unix)
//	slow-exit          take 400 ms to exit after stdin ends (a server tidying up)
//	close-stdin        after notifications/initialized, close stdin and stay alive
//	                   (the client's next write fails: a broken pipe)
//	tools-file         tools/list answers the JSON array in the file $MCPSCOPE_FAKE_TOOLS,
//	                   read when the server starts (a server whose code is that file:
//	                   the hot-reload tests change it); a tool called "hang" never answers,
//	                   and tools/call answers a tool's "x-answer" text when it has one
//	stderr-flood       before reading anything, write $MCPSCOPE_FAKE_STDERR bytes to stderr
//	                   in lines of 100 bytes, then the line "stderr flood done"
func MaybeRun() {
	spec, ok := os.LookupEnv(EnvVar)
	if !ok {
		return
	}
	os.Exit(run(strings.Split(spec, ",")))
}

// MaybeRunServer is what a TestMain calls first: the test binary becomes
// the fake server when EnvVar is set (MaybeRun), or mcpscope's demo server
// when it was started as "<binary> demo-server", which is how mcpscope
// spawns its built-in demo. Otherwise it returns and the tests run.
func MaybeRunServer() {
	MaybeRun()
	if len(os.Args) > 1 && os.Args[1] == "demo-server" {
		if err := demo.RunStdio(context.Background()); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// StderrBytesVar is how many bytes the stderr-flood behaviour writes.
const StderrBytesVar = "MCPSCOPE_FAKE_STDERR"

// StderrFloodDone is the line the stderr-flood behaviour ends its flood with.
const StderrFloodDone = "stderr flood done"

// floodStderr writes n bytes to stderr in numbered lines of 100 bytes.
func floodStderr(n int) {
	w := bufio.NewWriterSize(os.Stderr, 1<<16)
	line := []byte(fmt.Sprintf("%-99s\n", "stderr line 000000000 of a flood"))
	for i := 0; i < n/len(line); i++ {
		copy(line[12:21], fmt.Sprintf("%09d", i))
		if _, err := w.Write(line); err != nil {
			return
		}
	}
	_, _ = fmt.Fprintln(w, StderrFloodDone)
	_ = w.Flush()
}

// ToolsFileVar names the file of the tools-file behaviour.
const ToolsFileVar = "MCPSCOPE_FAKE_TOOLS"

type server struct {
	has   map[string]bool
	out   *bufio.Writer
	tools string // tools-file: the tools, as read at start
}

func run(behaviours []string) int {
	s := &server{has: map[string]bool{}, out: bufio.NewWriterSize(os.Stdout, 1<<16)}
	for _, b := range behaviours {
		s.has[strings.TrimSpace(b)] = true
	}
	if f := os.Getenv(PIDFileVar); f != "" {
		_ = os.WriteFile(f, []byte(strconv.Itoa(os.Getpid())), 0o600)
	}
	if s.has["ignore-term"] {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	}
	if s.has["script"] {
		return runScript()
	}
	if s.has["tools-file"] {
		b, err := os.ReadFile(os.Getenv(ToolsFileVar))
		if err != nil || !json.Valid(b) {
			fmt.Fprintf(os.Stderr, "fake: tools-file: cannot read %s: %v\n", os.Getenv(ToolsFileVar), err)
			return 4
		}
		s.tools = string(b)
	}
	if s.has["stderr-flood"] {
		n, _ := strconv.Atoi(os.Getenv(StderrBytesVar))
		floodStderr(n)
	}
	if s.has["exit-at-start"] {
		fmt.Fprintln(os.Stderr, "fatal: config file not found")
		return 3
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if code, stop := s.handle(line); stop {
				return code
			}
		}
		if err != nil {
			if s.has["slow-exit"] {
				time.Sleep(400 * time.Millisecond) // flushing, closing files...
			}
			return 0
		}
	}
}

type request struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// send writes one line. A failed write means the client went away: the
// fake has nobody left to tell, and the closed stdin ends its loop.
func (s *server) send(v string) {
	_, _ = s.out.WriteString(v)
	_ = s.out.WriteByte('\n')
	_ = s.out.Flush()
}

func (s *server) reply(id json.RawMessage, result string) {
	s.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

func (s *server) fail(id json.RawMessage, code int, msg string) {
	m, _ := json.Marshal(msg)
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`, id, code, m))
}

// answerOf is the "x-answer" of the tool a tools/call names, as JSON, or
// "".
func (s *server) answerOf(params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
	}
	var tools []struct {
		Name   string          `json:"name"`
		Answer json.RawMessage `json:"x-answer"`
	}
	if json.Unmarshal(params, &p) != nil || json.Unmarshal([]byte(s.tools), &tools) != nil {
		return ""
	}
	for _, t := range tools {
		if t.Name == p.Name && t.Answer != nil {
			return string(t.Answer)
		}
	}
	return ""
}

func (s *server) handle(line []byte) (int, bool) {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		fmt.Fprintf(os.Stderr, "fake: unreadable line: %v\n", err)
		return 0, false
	}
	if s.has["silent"] {
		return 0, false
	}
	if r.Method == "" { // a response to one of our requests
		fmt.Fprintf(os.Stderr, "fake: client answered %s: %s%s\n", r.ID, r.Result, r.Error)
		return 0, false
	}
	switch r.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(r.Params, &p)
		v := p.ProtocolVersion
		if s.has["bad-version"] {
			v = "1999-01-01"
		}
		s.reply(r.ID, `{"protocolVersion":"`+v+`","capabilities":{"tools":{"listChanged":true},"logging":{}},"serverInfo":{"name":"fake","version":"0.0.1"},"instructions":"a test server"}`)
		if s.has["noise"] {
			s.send(`Server listening on stdio`)
			s.send(`{"jsonrpc":"2.0","id":`)
			s.send(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"in a batch"}},{"jsonrpc":"2.0","id":999,"result":{}}]`)
			s.send(`{"jsonrpc":"2.0","id":424242,"result":{}}`)
			s.send("{\n  \"jsonrpc\": \"2.0\",")
			s.send(`  "method": "notifications/message"}`)
		}
	case "server/discover":
		if s.has["modern"] {
			s.reply(r.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"private","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake-modern","version":"2.0.0"}}}`)
			return 0, false
		}
		s.fail(r.ID, -32601, "Method not found")
	case "notifications/initialized":
		if s.has["deaf"] {
			for {
				time.Sleep(time.Hour) // stdin is never read again
			}
		}
		if s.has["close-stdin"] {
			_ = os.Stdin.Close()
			for {
				time.Sleep(time.Hour) // alive, but nothing can reach it
			}
		}
		if s.has["ask"] {
			s.send(`{"jsonrpc":"2.0","id":"s1","method":"ping"}`)
			s.send(`{"jsonrpc":"2.0","id":"s2","method":"roots/list","params":{}}`)
		}
	case "notifications/cancelled":
		fmt.Fprintf(os.Stderr, "fake: got cancelled %s\n", r.Params)
	case "ping":
		s.reply(r.ID, `{}`)
	case "tools/list":
		var p struct {
			Cursor string `json:"cursor"`
		}
		_ = json.Unmarshal(r.Params, &p)
		tool := `{"name":"echo","inputSchema":{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer"},"loud":{"type":"boolean"}},"required":["message"]}}`
		switch {
		case s.has["tools-file"]:
			s.reply(r.ID, `{"tools":`+s.tools+`}`)
		case s.has["repeat-cursor"]:
			s.reply(r.ID, `{"tools":[`+tool+`],"nextCursor":"again"}`)
		case s.has["paginate"] && p.Cursor == "":
			s.reply(r.ID, `{"tools":[`+tool+`],"nextCursor":"page2"}`)
		case s.has["paginate"]:
			s.reply(r.ID, `{"tools":[{"name":"second","inputSchema":{"type":"object"}}]}`)
		default:
			s.reply(r.ID, `{"tools":[`+tool+`]}`)
		}
	case "tools/call":
		switch {
		case s.has["close-stdout"]:
			_ = s.out.Flush()
			_ = os.Stdout.Close()
			return 0, false
		case s.has["stop-on-call"]:
			_ = s.out.Flush()
			stopSelf()
			return 0, false
		case s.has["crash-on-call"]:
			fmt.Fprintln(os.Stderr, "panic: something broke")
			fmt.Fprintln(os.Stderr, "goroutine 1 [running]")
			_ = s.out.Flush() // about to exit; a gone client is fine
			return 7, true
		case s.has["hang-on-call"]:
			return 0, false
		case s.has["tools-file"] && strings.Contains(string(r.Params), `"name":"hang"`):
			return 0, false
		case s.has["big-line"]:
			n, _ := strconv.Atoi(os.Getenv("MCPSCOPE_FAKE_BIG"))
			text := strings.Repeat("x", n)
			s.reply(r.ID, `{"content":[{"type":"text","text":"`+text+`"}]}`)
			return 0, false
		case s.has["big-json"]:
			n, _ := strconv.Atoi(os.Getenv("MCPSCOPE_FAKE_BIG"))
			text, _ := json.Marshal(jsonRows(n))
			s.reply(r.ID, `{"content":[{"type":"text","text":`+string(text)+`}]}`)
			return 0, false
		}
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
			Meta      struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		}
		_ = json.Unmarshal(r.Params, &p)
		if s.has["progress"] && p.Meta.ProgressToken != nil {
			for i := 1; i <= 3; i++ {
				s.send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":%d,"total":3}}`, p.Meta.ProgressToken, i))
				time.Sleep(10 * time.Millisecond)
			}
		}
		if s.has["tools-file"] {
			if a := s.answerOf(r.Params); a != "" {
				s.reply(r.ID, `{"content":[{"type":"text","text":`+a+`}]}`)
				return 0, false
			}
		}
		args, _ := json.Marshal(string(p.Arguments))
		s.reply(r.ID, `{"content":[{"type":"text","text":`+string(args)+`}]}`)
	default:
		if r.ID != nil {
			s.fail(r.ID, -32601, "Method not found: "+r.Method)
		}
	}
	return 0, false
}

// jsonRows is about n bytes of JSON text: an array of records, as a tool
// that returns a query's rows sends them.
func jsonRows(n int) string {
	var b strings.Builder
	b.Grow(n + 100)
	b.WriteString("[")
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true}`, i, i, i%100)
	}
	b.WriteString("]")
	return b.String()
}
