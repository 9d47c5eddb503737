package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// createRecord opens a session file for a target: the header names the
// server as it is started (for stdio, the transport's command and
// environment, which a --config file may have added to), with environment
// values redacted unless keepSecrets. edit, when set, adds to the header
// (a replay's record says what it replayed).
func createRecord(path string, t *target, keepSecrets bool, edit ...func(*record.Session)) (*record.Writer, error) {
	var command, env []string
	cwd := ""
	if st, ok := t.transport.(*mcp.StdioTransport); ok {
		command, env, cwd = append([]string{st.Command}, st.Args...), st.Env, st.Dir
	}
	s := record.Session{Target: t.description, Command: command, Env: env, Cwd: cwd, KeepSecrets: keepSecrets}
	for _, e := range edit {
		e(&s)
	}
	w, err := record.Create(path, s)
	if err != nil {
		return nil, err
	}
	// `mcpscope open` may follow the file while the session runs.
	w.FlushEvery(200 * time.Millisecond)
	return w, nil
}

// closeRecord closes a --record file at the end of a command and makes a
// failed write the command's error: the file is incomplete, and the exit
// code says so. When the command failed already, its error stays the one
// returned and the recording's is said on stderr, so neither is lost.
func closeRecord(rec *record.Writer, err *error, stderr io.Writer) {
	cerr := rec.Close()
	if cerr == nil {
		return
	}
	if *err == nil {
		*err = withCode(exitUsage, cerr)
		return
	}
	_, _ = fmt.Fprintln(stderr, "mcpscope: "+cerr.Error())
}

// sayCut tells on stderr that a session file read ends mid-line (note is
// reading.Session.CutNote or the like; "" says nothing): what is shown
// stops at its last complete line.
func sayCut(stderr io.Writer, note string) {
	if note != "" {
		_, _ = fmt.Fprintln(stderr, "mcpscope: "+termsafe.String(note))
	}
}
