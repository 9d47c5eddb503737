package tap

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// The hand-written frame encoder writes what record.FromEvent writes.
func TestFrameEntryMatchesRecord(t *testing.T) {
	o := mcp.NewObserver("stdio")
	at := time.Date(2026, 11, 30, 12, 0, 0, 123456789, time.UTC)
	raws := []string{
		`{"jsonrpc":"2.0","id":"probe-1","method":"server/discover","params":{}}`,
		`{"jsonrpc":"2.0","id":"probe-1","error":{"code":-32601,"message":"Method not found"}}`,
		`{"jsonrpc":"2.0","id":"a\"b","method":"tools/call","params":{"x":"tab\there \u2028 é ☃ \\ </script>"}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"result\":{\"text\":\"line\\nbreak\"}}",
		`{"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"no"}}`,
		"raw \x01 control \x7f and \u2029",
		"\xff\xfe not utf-8",
		`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"method":"b"}]`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{}}`,
	}
	for i, raw := range raws {
		dir := mcp.Outbound
		if i%2 == 1 {
			dir = mcp.Inbound
		}
		for _, f := range o.Frames(dir, []byte(raw), "a problem", "GET /mcp?x=1", at.Add(time.Duration(i)*1234567*time.Nanosecond)) {
			f.ClientSession = i % 3 // 0: a conversation of its own, not written
			var want, got record.Entry
			wb, _ := json.Marshal(record.FromEvent(mcp.FrameEvent{Frame: f}))
			if err := json.Unmarshal(wb, &want); err != nil {
				t.Fatal(err)
			}
			line := appendFrameEntry(nil, f, f.Stream)
			if err := json.Unmarshal(line, &got); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("frame %q:\n got %s\nwant %s", raw, line, wb)
			}
		}
	}
}
