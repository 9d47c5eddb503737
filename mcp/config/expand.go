package config

import (
	"errors"
	"fmt"
	"strings"
)

// ErrUnsetVariable is wrapped by errors about a ${VAR} that is not set.
var ErrUnsetVariable = errors.New("variable is not set")

// ErrUnsupportedVariable is wrapped by errors about VS Code variables that
// need an editor to answer (${input:…}, ${command:…}, ${config:…}).
var ErrUnsupportedVariable = errors.New("not supported by mcpscope")

type expander struct {
	lookup    func(string) (string, bool)
	home      string
	workspace string
}

// expand replaces ${…} references in s. Supported forms: ${VAR},
// ${env:VAR}, ${VAR:-default} (default when VAR is unset or empty, as in a
// shell), ${workspaceFolder} and ${userHome}. A lone $ is kept literally.
func (x expander) expand(s string) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated %q", s[i:])
		}
		ref := s[i+2 : i+end]
		v, err := x.resolve(ref)
		if err != nil {
			return "", err
		}
		b.WriteString(v)
		s = s[i+end+1:]
	}
}

func (x expander) resolve(ref string) (string, error) {
	switch ref {
	case "workspaceFolder":
		return x.workspace, nil
	case "userHome":
		return x.home, nil
	}
	name, def, hasDefault := ref, "", false
	if n, d, ok := strings.Cut(ref, ":-"); ok {
		name, def, hasDefault = n, d, true
	}
	if rest, ok := strings.CutPrefix(name, "env:"); ok {
		name = rest
	} else if kind, _, ok := strings.Cut(name, ":"); ok {
		if kind == "input" {
			return "", fmt.Errorf("${%s}: VS Code input variables prompt the user inside VS Code and are %w; put the value in an environment variable and use ${env:NAME}", ref, ErrUnsupportedVariable)
		}
		return "", fmt.Errorf("${%s}: %q variables are %w", ref, kind, ErrUnsupportedVariable)
	}
	if !validName(name) {
		return "", fmt.Errorf("${%s}: %q is not a variable name", ref, name)
	}
	v, ok := x.lookup(name)
	if hasDefault && v == "" {
		return def, nil
	}
	if !ok {
		return "", fmt.Errorf("${%s}: %s %w (set it, or give a default with ${%s:-value})", ref, name, ErrUnsetVariable, name)
	}
	return v, nil
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
