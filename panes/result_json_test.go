package panes

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
	"github.com/mcpscope/mcpscope/themes"
)

// bigJSONResult is a result whose text is a JSON array of n records (the
// first with a 300-character note), with a small structuredContent after
// it; and the text's lines as json.Indent prints them.
func bigJSONResult(n int) (raw []byte, text string, want []string) {
	rows := make([]string, n)
	for i := range rows {
		note := ""
		if i == 0 {
			note = `,"note":"` + strings.Repeat("long ", 59) + `END"`
		}
		rows[i] = fmt.Sprintf(`{"id":%d,"name":"row %d","tags":["a","b"],"empty":{}%s}`, i, i, note)
	}
	text = "[" + strings.Join(rows, ",") + "]"
	raw, _ = json.Marshal(map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": text}},
		"structuredContent": map[string]any{"count": n},
	})
	var b bytes.Buffer
	_ = json.Indent(&b, []byte(text), "", "  ")
	return raw, text, strings.Split(b.String(), "\n")
}

// A big JSON text is shown pretty-printed, its lines made as they are
// drawn: opening it allocates a fraction of what printing all of it did
// (json.Indent's output, a copy of it, and a string and a line entry for
// each of 180,000 lines: over 10x the text), G reaches its end, the
// lines are json.Indent's, sideways scrolling and wrap reach a long line's
// end, and c and s still take the result as received.
func TestResultBigJSONTextIndentedAsDrawn(t *testing.T) {
	raw, text, want := bigJSONResult(20_000)
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	prepare := r.SetResult(ToolResultMsg{Name: "rows", Result: raw})
	if prepare == nil {
		t.Fatalf("a %d-byte result was not prepared off the UI goroutine", len(raw))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r.Update(prepare())
	v := ansi.Strip(r.View())
	runtime.ReadMemStats(&after)
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("a %d-byte JSON text of %d lines: %d bytes allocated to show it (%.2fx the text)", len(text), len(want), allocated, float64(allocated)/float64(len(text)))
	// A window of the decoded text (a MiB at most: the text's lines are
	// made from the frame's bytes) and small change; printed whole, it
	// was over 10x the text.
	if allocated > 3*uint64(len(text)) {
		t.Errorf("%d bytes allocated to open a %d-byte result: its lines are made before they are drawn", allocated, len(raw))
	}
	if !strings.Contains(v, "text (JSON)") || !strings.Contains(v, `"name": "row 0"`) {
		t.Fatalf("the first screen is not the pretty JSON:\n%s", v)
	}
	// The block's lines, in order, right after its heading.
	at := -1
	for i := range r.Lines() {
		if strings.Contains(ansi.Strip(r.renderLine(r.line(i))), "text (JSON)") {
			at = i + 1
			break
		}
	}
	if at < 0 || r.Lines() < at+len(want)+2 {
		t.Fatalf("%d lines in the body, the JSON alone has %d", r.Lines(), len(want))
	}
	for k, w := range want {
		if got := r.line(at + k); got.kind != lineJSON || got.text != w {
			t.Fatalf("JSON line %d is %q, json.Indent gives %q", k, got.text, w)
		}
	}
	if got := ansi.Strip(r.renderLine(r.line(at + len(want) + 1))); !strings.Contains(got, "structuredContent") {
		t.Fatalf("after the JSON text comes %q, want the structuredContent heading", got)
	}

	// Sideways to the long note's end, then wrapped.
	for range 4 {
		r.Update(press("right"))
	}
	if v := ansi.Strip(r.View()); !strings.Contains(v, "END") {
		t.Fatalf("scrolled sideways, the note's end is not on screen:\n%s", v)
	}
	r.Update(press("W"))
	if v := ansi.Strip(r.View()); !strings.Contains(v, "END") || !strings.Contains(v, `"name": "row 0"`) {
		t.Fatalf("wrapped, the note's end is not on screen:\n%s", v)
	}
	r.Update(press("W"))

	r.Update(press("G"))
	if v := ansi.Strip(r.View()); !strings.Contains(v, `"count": 20000`) || !strings.Contains(v, `"name": "row 19999"`) {
		t.Fatalf("G does not show the end:\n%s", v)
	}
	r.Update(press("g"))
	if v := ansi.Strip(r.View()); !strings.Contains(v, `"name": "row 0"`) {
		t.Fatalf("g does not show the start again:\n%s", v)
	}

	if got := fmt.Sprintf("%s", r.Update(press("c"))()); !strings.Contains(got, `row 19999`) || !strings.Contains(got, `\"id\":0`) {
		t.Fatalf("c does not copy the result as received (%d bytes of message)", len(got))
	}
	if save, ok := r.Update(tea.KeyPressMsg{Code: 's', Text: "s"})().(SaveBlobMsg); !ok || !bytes.Equal(save.Data, raw) {
		t.Fatal("s does not save the result as received")
	}
}

// BenchmarkResultHugeJSONText is the result view's share of a 20 MB JSON
// text on its way to the screen: from the result's bytes (as the frame
// holds them) through the preparation a Cmd does (decoding the text,
// checking it as JSON and indexing its pretty-printed lines) to the first
// screen drawn. ui's BenchmarkHugeJSONResultToScreen is the whole way.
func BenchmarkResultHugeJSONText(b *testing.B) {
	r, raw := hugeJSONTextResult(b)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		prepare := r.SetResult(ToolResultMsg{Name: "rows", Result: raw})
		r.Update(prepare())
		if v := r.View(); !strings.Contains(v, "row 0000000") {
			b.Fatalf("the first row is not on screen:\n%s", v)
		}
	}
}

// BenchmarkResultHugeJSONTextKeys is what the UI goroutine spends on a
// shown 20 MB JSON text result when the user presses v (the response
// frame raw, and back) or changes the theme.
func BenchmarkResultHugeJSONTextKeys(b *testing.B) {
	r, raw := hugeJSONTextResult(b)
	frame := []byte(`{"jsonrpc":"2.0","id":3,"result":` + string(raw) + `}`)
	r.Update(r.SetResult(ToolResultMsg{Name: "rows", Result: raw, Response: &mcp.Frame{Seq: 4, Raw: frame}})())
	b.Run("v", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
			if v := r.View(); r.Raw() && !strings.Contains(v, `{"jsonrpc":"2.0","id":3`) {
				b.Fatalf("the raw frame is not on screen:\n%s", v)
			}
		}
	})
	b.Run("theme", func(b *testing.B) {
		b.ReportAllocs()
		dark := true
		for b.Loop() {
			dark = !dark
			r.SetTheme(themes.Default(dark))
			if v := r.View(); !r.Raw() && !strings.Contains(v, "row 0000000") {
				b.Fatalf("the first row is not on screen:\n%s", v)
			}
		}
	})
}

// hugeJSONTextResult is a result view and a 20 MB result whose text is
// JSON, its bytes marked immutable and checked as a frame's are.
func hugeJSONTextResult(b *testing.B) (*Result, []byte) {
	var text strings.Builder
	text.WriteString("[")
	for i := 0; text.Len() < 20<<20; i++ {
		if i > 0 {
			text.WriteString(",")
		}
		fmt.Fprintf(&text, `{"id":%d,"name":"row %07d","tags":["a","b"],"score":%d.5,"ok":true}`, i, i, i%100)
	}
	text.WriteString("]")
	quoted, _ := json.Marshal(text.String())
	raw := []byte(`{"content":[{"type":"text","text":` + string(quoted) + `}]}`)
	// As a frame's: the reader's check found the text's end, and the
	// view's readers of the result jump to it.
	jsonview.Immutable(raw)
	if !jsonview.Valid(raw) {
		b.Fatal("invalid")
	}
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	return r, raw
}

// The raw view (v) of a big frame shows it byte for byte, cut at the
// width, G reaching its end; its lines are cut from the frame as they are
// drawn (opening it allocates a fraction of the frame); c copies the frame.
func TestResultRawViewOfABigFrameIsExact(t *testing.T) {
	raw, _, _ := bigJSONResult(20_000)
	frame := []byte(`{"jsonrpc":"2.0","id":3,"result":` + string(raw) + `}`)
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	r.Update(r.SetResult(ToolResultMsg{Name: "rows", Result: raw, Seq: 4, Response: &mcp.Frame{Seq: 4, Raw: frame}})())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r.Update(tea.KeyPressMsg{Code: 'v', Text: "v"})
	v := ansi.Strip(r.View())
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(frame))/4 {
		t.Errorf("%d bytes allocated to show a %d-byte frame raw: it is copied or cut whole", allocated, len(frame))
	}
	if !strings.Contains(v, "raw response · frame #4") || !strings.Contains(v, string(frame[:118])) {
		t.Fatalf("the raw view does not start with the frame:\n%s", v)
	}
	var body strings.Builder
	for i := range r.Lines() {
		l := r.line(i)
		if l.kind != lineSafe || ansi.StringWidth(l.text) > 118 {
			t.Fatalf("line %d: kind %d, %d cells", i, l.kind, ansi.StringWidth(l.text))
		}
		body.WriteString(l.text)
	}
	if body.String() != string(frame) {
		t.Fatalf("the raw view's %d lines are not the frame's %d bytes", r.Lines(), len(frame))
	}
	r.Update(press("G"))
	if v := ansi.Strip(r.View()); !strings.Contains(v, string(frame[len(frame)-len(frame)%118:])) {
		t.Fatalf("G does not show the frame's end:\n%s", v)
	}
	if got := r.copyPayload(); !bytes.Equal(got, frame) {
		t.Fatal("c does not copy the frame in the raw view")
	}
}

// printableASCII agrees with a byte loop wherever the odd byte sits.
func TestPrintableASCII(t *testing.T) {
	for _, odd := range []byte{0x00, 0x09, 0x1f, 0x7f, 0x80, 0xc3, 0xff} {
		for n := 1; n <= 20; n++ {
			for at := range n {
				b := bytes.Repeat([]byte{'a'}, n)
				if printableASCII(b) != true {
					t.Fatalf("%q is not printable ASCII", b)
				}
				b[at] = odd
				if printableASCII(b) {
					t.Fatalf("%q (0x%02x at %d) is printable ASCII", b, odd, at)
				}
			}
		}
	}
	all := make([]byte, 0, 95)
	for c := byte(0x20); c <= 0x7e; c++ {
		all = append(all, c)
	}
	if !printableASCII(all) {
		t.Fatal("0x20-0x7e is not printable ASCII")
	}
}

// A theme change re-styles a big JSON text without decoding and indexing
// it again on the UI goroutine: it allocates a fraction of the text, and
// the view is the same JSON in the new theme's colours.
func TestResultThemeChangeKeepsTheBigTextPrepared(t *testing.T) {
	raw, text, _ := bigJSONResult(20_000)
	r := NewResult(themes.Default(true), keymap.Default())
	r.SetSize(120, 35)
	r.Update(r.SetResult(ToolResultMsg{Name: "rows", Result: raw})())
	r.Update(press("G"))
	want := ansi.Strip(r.View())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	light := themes.Default(false)
	r.SetTheme(light)
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > uint64(len(text))/4 {
		t.Errorf("%d bytes allocated to re-style a %d-byte JSON text: it was decoded or indexed again", allocated, len(text))
	}
	r.Update(press("G"))
	if got := ansi.Strip(r.View()); got != want {
		t.Fatalf("after the theme change the view is\n%s\nwant\n%s", got, want)
	}
	if r.theme != light {
		t.Fatal("the theme did not change")
	}
}
