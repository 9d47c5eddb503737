package config

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// readEnvFile reads a dotenv file as VS Code's envFile does: KEY=VALUE
// lines, # comments, blank lines, an optional "export " prefix, and values
// optionally wrapped in single or double quotes (double quotes take Go
// escapes such as \n). Values are not expanded.
func readEnvFile(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading env file: %w", err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, val, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || !validName(key) {
			return nil, fmt.Errorf("%s:%d: want KEY=VALUE, got %q", path, n, line)
		}
		val = strings.TrimSpace(val)
		switch {
		case len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"':
			uq, err := strconv.Unquote(val)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			val = uq
		case len(val) >= 2 && val[0] == '\'' && val[len(val)-1] == '\'':
			val = val[1 : len(val)-1]
		}
		env[key] = val
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading env file: %w", err)
	}
	return env, nil
}
