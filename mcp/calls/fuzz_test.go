package calls

import (
	"testing"
	"time"
)

// FuzzParse: no calls file makes the reader panic, and what it accepts it
// can save again and read back.
func FuzzParse(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(demoCalls))
	f.Add([]byte(`{"calls": [/* c */ {"name": "a", "method": "ping", "expect": {"snapshot": {"error": {}}, "ignore": ["**"]},},]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f.json", data)
		if err != nil {
			return
		}
		out, err := file.WithCall(Call{Name: "fuzz", Method: "ping"})
		if err != nil {
			return
		}
		if _, err := Parse("f.json", out); err != nil {
			t.Fatalf("a saved call made the file unreadable: %v\n%s\n->\n%s", err, data, out)
		}
	})
}

// FuzzCheck: whatever a server answers, checking it does not panic.
func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"3"}],"structuredContent":{"sum":3}}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x"}}`))
	f.Add([]byte(`{"result":[1,{"a":null}]}`))
	file, err := Parse("f.json", []byte(`{"calls": [{"name": "a", "method": "tools/call", "params": {"name": "add"},
	  "expect": {"isError": false, "error": {"code": 1}, "equals": {"/content/0/text": "3", "": {}}, "matches": {"/content/0/text": "^3$"},
	    "schema": {"type": "object", "properties": {"sum": {"type": "number"}}}, "snapshot": {"result": {"content": []}}, "maxMs": 10}}]}`))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, message []byte) {
		a := AnswerOf(message, time.Millisecond)
		_ = Check(file.Calls[0], a, nil)
		_ = a.Message()
	})
}
