package tap

import (
	"encoding/json"
)

func params(raw []byte) json.RawMessage {
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Params
}
