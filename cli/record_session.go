package cli

import (
	"time"

	"github.com/mcpscope/mcpscope/mcp"
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
