package tap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"

	"github.com/mcpscope/mcpscope/mcp/config"
)

// Install rewrites the named stdio servers of a client's config text (all
// of them when names is empty) to run through `self tap`. Only the
// command's string and the start of its args change; comments and
// formatting stay. A server already tapped is left alone, so installing
// twice changes nothing the second time. It returns the new text and the
// servers it changed.
//
// The original command's JSON string is kept byte for byte as the first
// argument after "--", which is what lets Uninstall restore the file
// exactly.
func Install(data []byte, self string, names []string) ([]byte, []string, error) {
	entries, err := config.Locate(data)
	if err != nil {
		return nil, nil, err
	}
	selfTok, _ := json.Marshal(self)
	type edit struct {
		off, end int
		text     string
	}
	var edits []edit
	var changed []string
	for _, e := range entries {
		if !wanted(e.Name, names) || tapped(e) {
			continue
		}
		nameTok, _ := json.Marshal(e.Name)
		prefix := `"tap", "--name", ` + string(nameTok) + `, "--", ` + string(data[e.CommandOff:e.CommandEnd])
		edits = append(edits, edit{e.CommandOff, e.CommandEnd, string(selfTok)})
		if e.ArgsOff < 0 {
			edits = append(edits, edit{e.CommandEnd, e.CommandEnd, `, "args": [` + prefix + `]`})
		} else {
			if len(e.Args) > 0 {
				prefix += ", "
			}
			edits = append(edits, edit{e.ArgsOff + 1, e.ArgsOff + 1, prefix})
		}
		changed = append(changed, e.Name)
	}
	if err := missing(entries, names); err != nil {
		return nil, nil, err
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	out := append([]byte(nil), data...)
	for _, ed := range edits {
		out = append(out[:ed.off], append([]byte(ed.text), out[ed.end:]...)...)
	}
	return out, changed, nil
}

// Uninstall undoes Install for the named servers (all tapped ones when
// names is empty), byte for byte. A tapped entry edited since, so that the
// text Install wrote is no longer there, is an error that names it.
func Uninstall(data []byte, names []string) ([]byte, []string, error) {
	entries, err := config.Locate(data)
	if err != nil {
		return nil, nil, err
	}
	out := append([]byte(nil), data...)
	var changed []string
	// From the end of the file, so that earlier offsets stay right.
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if !wanted(e.Name, names) || !tapped(e) {
			continue
		}
		nameTok, _ := json.Marshal(e.Name)
		arr := data[e.ArgsOff:e.ArgsEnd]
		head := []byte(`["tap", "--name", ` + string(nameTok) + `, "--", `)
		if !bytes.HasPrefix(arr, head) {
			return nil, nil, fmt.Errorf("%s: its args were edited since `tap install`; restore it from the backup", e.Name)
		}
		// The original command's token follows, exactly as it was.
		rest := arr[len(head):]
		tokEnd := stringTokenEnd(rest)
		if tokEnd < 0 {
			return nil, nil, fmt.Errorf("%s: its args were edited since `tap install`; restore it from the backup", e.Name)
		}
		tok := rest[:tokEnd]
		after := rest[tokEnd:]
		var repl []byte
		switch {
		case bytes.Equal(after, []byte("]")) && bytes.Equal(data[e.CommandEnd:e.ArgsOff], []byte(`, "args": `)):
			// Install added the whole args member.
			repl = tok
			out = append(out[:e.CommandOff], append(append([]byte(nil), repl...), out[e.ArgsEnd:]...)...)
			changed = append(changed, e.Name)
			continue
		case bytes.HasPrefix(after, []byte(", ")):
			after = after[2:]
		case bytes.HasPrefix(after, []byte("]")):
		default:
			return nil, nil, fmt.Errorf("%s: its args were edited since `tap install`; restore it from the backup", e.Name)
		}
		newArr := append([]byte("["), after...)
		out = append(out[:e.ArgsOff], append(newArr, out[e.ArgsEnd:]...)...)
		out = append(out[:e.CommandOff], append(append([]byte(nil), tok...), out[e.CommandEnd:]...)...)
		changed = append(changed, e.Name)
	}
	if err := missing(entries, names); err != nil {
		return nil, nil, err
	}
	sort.Strings(changed)
	return out, changed, nil
}

// stringTokenEnd is the length of the JSON string token b starts with, or
// -1.
func stringTokenEnd(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return -1
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func tapped(e config.Entry) bool {
	return len(e.Args) >= 5 && e.Args[0] == "tap" && e.Args[1] == "--name" && e.Args[3] == "--"
}

func wanted(name string, names []string) bool {
	if len(names) == 0 {
		return true
	}
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

func missing(entries []config.Entry, names []string) error {
	for _, n := range names {
		found := false
		for _, e := range entries {
			found = found || e.Name == n
		}
		if !found {
			return fmt.Errorf("no stdio server %q in the file (a URL server is tapped with tap --listen)", n)
		}
	}
	return nil
}

// KnownConfigs are the usual config files of Claude Desktop, Cursor,
// Claude Code and VS Code on this system; the caller lists those that
// exist.
func KnownConfigs() []string {
	home, _ := os.UserHomeDir()
	var out []string
	switch runtime.GOOS {
	case "darwin":
		out = append(out, filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"),
			filepath.Join(home, "Library", "Application Support", "Code", "User", "mcp.json"))
	case "windows":
		appData := os.Getenv("APPDATA")
		out = append(out, filepath.Join(appData, "Claude", "claude_desktop_config.json"),
			filepath.Join(appData, "Code", "User", "mcp.json"))
	default:
		out = append(out, filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"),
			filepath.Join(home, ".config", "Code", "User", "mcp.json"))
	}
	return append(out, filepath.Join(home, ".cursor", "mcp.json"), filepath.Join(home, ".claude.json"),
		".mcp.json", filepath.Join(".cursor", "mcp.json"), filepath.Join(".vscode", "mcp.json"))
}
