package config

import (
	"encoding/json"
	"errors"
)

// Entry locates one stdio server of a config file in the file's text, so
// that a tool can edit it in place (mcpscope tap install) and keep the
// comments and formatting of everything else.
type Entry struct {
	Name    string
	Command string
	Args    []string
	// CommandOff and CommandEnd bound the command's JSON string, quotes
	// included.
	CommandOff, CommandEnd int
	// ArgsOff and ArgsEnd bound the args array, brackets included; both
	// are -1 when the entry has no args.
	ArgsOff, ArgsEnd int
}

// Locate finds the stdio servers (those with a "command") of a Claude
// Desktop, Cursor, Claude Code or VS Code config file, in file order.
func Locate(data []byte) ([]Entry, error) {
	clean, err := stripJSONC(data)
	if err != nil {
		return nil, err
	}
	top, err := members(clean, 0)
	if err != nil {
		return nil, errors.New("the top level must be a JSON object")
	}
	var servers member
	var ok bool
	if servers, ok = find(top, "mcpServers"); !ok {
		if servers, ok = find(top, "servers"); !ok {
			if m, found := find(top, "mcp"); found {
				if inner, err := members(clean, m.valueOff); err == nil {
					servers, ok = find(inner, "servers")
				}
			}
		}
	}
	if !ok {
		return nil, errors.New(`no "mcpServers", "servers" or "mcp.servers" object`)
	}
	list, err := members(clean, servers.valueOff)
	if err != nil {
		return nil, errors.New("the servers are not an object")
	}
	var out []Entry
	for _, s := range list {
		fields, err := members(clean, s.valueOff)
		if err != nil {
			continue
		}
		cmd, ok := find(fields, "command")
		if !ok || json.Unmarshal(cmd.value, new(string)) != nil {
			continue
		}
		e := Entry{Name: s.key, CommandOff: cmd.valueOff, CommandEnd: cmd.valueOff + len(cmd.value), ArgsOff: -1, ArgsEnd: -1}
		_ = json.Unmarshal(cmd.value, &e.Command)
		if a, ok := find(fields, "args"); ok && len(a.value) > 0 && a.value[0] == '[' {
			e.ArgsOff, e.ArgsEnd = a.valueOff, a.valueOff+len(a.value)
			_ = json.Unmarshal(a.value, &e.Args)
		}
		out = append(out, e)
	}
	return out, nil
}
