package tap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// LiveTarget is what a separate live session on a tapped server runs
// (the viewer's key for experiments): the mcpscope arguments that name the
// server, "--" and its command for a stdio tap (to run in dir, where the
// tap ran it), or its URL for an HTTP tap. It fails when the recording
// cannot say: no command, or one whose secrets were redacted.
func LiveTarget(l Listed) (args []string, dir string, err error) {
	head, _ := sessionHeader(l.File)
	dir = head.Cwd
	switch {
	case l.URL != "":
		if strings.Contains(l.URL, record.Redacted) {
			return nil, "", fmt.Errorf("the recorded URL %s has redacted values", l.URL)
		}
		return []string{l.URL}, "", nil
	case len(l.Command) > 0:
		for _, a := range l.Command {
			if strings.Contains(a, record.Redacted) {
				return nil, "", errors.New("the recorded command has redacted values: run it yourself with mcpscope -- CMD")
			}
		}
		if dir != "" {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				dir = "" // gone: the command may still run from here
			}
		}
		return append([]string{"--"}, l.Command...), dir, nil
	}
	return nil, "", errors.New("the tap recorded no command or URL to start a session on")
}

// sessionHeader reads a session file's first line.
func sessionHeader(file string) (record.Entry, error) {
	var e record.Entry
	f, err := os.Open(file)
	if err != nil {
		return e, fmt.Errorf("tap: %w", err)
	}
	defer func() { _ = f.Close() }()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return e, fmt.Errorf("tap: %s: %w", file, err)
	}
	if err := json.Unmarshal(line, &e); err != nil || e.Type != "session" {
		return record.Entry{}, fmt.Errorf("tap: %s is not a session file", file)
	}
	return e, nil
}
