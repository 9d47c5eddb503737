package mcptest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ScriptVar holds the JSON [Script] the "script" behaviour follows.
const ScriptVar = "MCPSCOPE_FAKE_SCRIPT"

// Script is a general scriptable server: for each incoming method, the raw
// lines to write, call by call. It exists so that every protocol mistake
// can be staged as real stdio traffic without a new behaviour per case.
//
// A line is written as is, after replacing these placeholders from the
// incoming message:
//
//	{{id}}             the request's id token, as sent
//	{{version}}        params.protocolVersion (initialize)
//	{{progressToken}}  params._meta.progressToken, as sent (null if none)
//	{{meta}}           params._meta, as sent (null if none): a server that echoes it
//	{{cursor}}         params.cursor (empty if none)
//
// and these directives, which are not written:
//
//	@sleep:DURATION    pause (Go duration syntax, e.g. 50ms)
//	@stderr:TEXT       write TEXT to stderr
//	@exit:CODE         exit at once with CODE
//	@close-stdout      close stdout and keep running (nothing written after it arrives)
type Script struct {
	// Start lines are written before anything is read.
	Start []string `json:"start,omitempty"`
	// Capabilities are the server capabilities of the default initialize
	// answer ({} when empty).
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// On maps a method to its replies: the i-th call gets On[method][i],
	// a list of lines; calls past the end get the last entry again.
	// Methods without an entry get the defaults: initialize answers the
	// offered version with Capabilities, ping answers {}, other requests
	// answer -32601, notifications and responses get nothing.
	On map[string][][]string `json:"on,omitempty"`
	// OnEOF lines run when stdin ends, before the server exits with 0
	// (e.g. "@sleep:10s" for a server that ignores EOF, "@exit:3").
	OnEOF []string `json:"onEOF,omitempty"`
	// IgnoreTerm makes the server ignore SIGTERM and SIGINT (only SIGKILL
	// ends it), as the ignore-term behaviour does.
	IgnoreTerm bool `json:"-"`
}

// Env returns the environment entries that make the fake server follow s.
func (s Script) Env() []string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcptest: script does not encode: %v", err))
	}
	behaviours := "script"
	if s.IgnoreTerm {
		behaviours += ",ignore-term"
	}
	return []string{EnvVar + "=" + behaviours, ScriptVar + "=" + string(b)}
}

// runScript serves stdin/stdout by the script in $MCPSCOPE_FAKE_SCRIPT.
func runScript() int {
	var sc Script
	if err := json.Unmarshal([]byte(os.Getenv(ScriptVar)), &sc); err != nil {
		fmt.Fprintf(os.Stderr, "fake: bad %s: %v\n", ScriptVar, err)
		return 2
	}
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	calls := map[string]int{}
	if code, stop := writeLines(out, sc.Start, nil); stop {
		return code
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			if code, stop := sc.answer(out, line, calls); stop {
				return code
			}
		}
		if err != nil {
			code, _ := writeLines(out, sc.OnEOF, nil)
			return code
		}
	}
}

func (sc *Script) answer(out *bufio.Writer, line []byte, calls map[string]int) (int, bool) {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			ProtocolVersion string `json:"protocolVersion"`
			Cursor          string `json:"cursor"`
			Meta            struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(line, &msg); err != nil || msg.Method == "" {
		return 0, false
	}
	var withMeta struct {
		Params struct {
			Meta json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(line, &withMeta)
	meta := string(withMeta.Params.Meta)
	if meta == "" {
		meta = "null"
	}
	token := string(msg.Params.Meta.ProgressToken)
	if token == "" {
		token = "null"
	}
	vars := strings.NewReplacer(
		"{{id}}", string(msg.ID),
		"{{version}}", msg.Params.ProtocolVersion,
		"{{progressToken}}", token,
		"{{meta}}", meta,
		"{{cursor}}", msg.Params.Cursor,
	)
	replies, scripted := sc.On[msg.Method]
	if scripted && len(replies) > 0 {
		n := calls[msg.Method]
		calls[msg.Method] = n + 1
		if n >= len(replies) {
			n = len(replies) - 1
		}
		return writeLines(out, replies[n], vars)
	}
	if msg.ID == nil {
		return 0, false
	}
	switch msg.Method {
	case "initialize":
		caps := string(sc.Capabilities)
		if caps == "" {
			caps = "{}"
		}
		return writeLines(out, []string{`{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"{{version}}","capabilities":` + caps + `,"serverInfo":{"name":"script","version":"1.0.0"}}}`}, vars)
	case "ping":
		return writeLines(out, []string{`{"jsonrpc":"2.0","id":{{id}},"result":{}}`}, vars)
	}
	return writeLines(out, []string{`{"jsonrpc":"2.0","id":{{id}},"error":{"code":-32601,"message":"Method not found"}}`}, vars)
}

func writeLines(out *bufio.Writer, lines []string, vars *strings.Replacer) (int, bool) {
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "@sleep:"):
			_ = out.Flush() // a failed write (client gone) ends the script at the next read
			if d, err := time.ParseDuration(strings.TrimPrefix(l, "@sleep:")); err == nil {
				time.Sleep(d)
			}
			continue
		case strings.HasPrefix(l, "@stderr:"):
			_ = out.Flush()
			fmt.Fprintln(os.Stderr, strings.TrimPrefix(l, "@stderr:"))
			continue
		case l == "@close-stdout":
			_ = out.Flush()
			_ = os.Stdout.Close()
			continue
		case strings.HasPrefix(l, "@exit:"):
			_ = out.Flush()
			code, _ := strconv.Atoi(strings.TrimPrefix(l, "@exit:"))
			return code, true
		}
		if vars != nil {
			l = vars.Replace(l)
		}
		_, _ = out.WriteString(l)
		_ = out.WriteByte('\n')
	}
	_ = out.Flush()
	return 0, false
}
