package config

import "testing"

// FuzzParse: any configuration file is parsed or refused with an error,
// never a panic: a config file can be anyone's.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers":{"a":{"command":"x","args":["${HOME}"],"env":{"K":"${env:K}"}}}}`,
		`{"servers":{"b":{"type":"http","url":"https://h/mcp","headers":{"A":"${input:tok}"}}},"inputs":[{"id":"tok","type":"promptString"}]}`,
		`// comment
{"servers":{"c":{"command":"${workspaceFolder}/x",},},}`,
		`{"mcpServers":[]}`, `{`, `null`, `{"mcpServers":{"d":{"envFile":"../.env"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{Home: "/home/u", LookupEnv: func(k string) (string, bool) { return "v", k != "" }}
		file, err := Parse("/w/.vscode/mcp.json", data, opts)
		if err == nil && file == nil {
			t.Fatal("no file and no error")
		}
	})
}
