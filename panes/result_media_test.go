package panes

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/themes"
)

// wav is a PCM WAV header (with a LIST chunk before the data, as many
// encoders write) declaring seconds of 16-bit mono at rate, and a few
// samples.
func wav(rate int, seconds float64) []byte {
	var b bytes.Buffer
	dataSize := uint32(float64(rate*2) * seconds)
	b.WriteString("RIFF")
	_ = binary.Write(&b, binary.LittleEndian, uint32(36+dataSize))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(1), uint16(1), uint32(rate), uint32(rate * 2), uint16(2), uint16(16)} {
		_ = binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("LIST")
	_ = binary.Write(&b, binary.LittleEndian, uint32(5))
	b.WriteString("INFO\x00\x00") // odd size, padded
	b.WriteString("data")
	_ = binary.Write(&b, binary.LittleEndian, dataSize)
	b.Write(make([]byte, 64))
	return b.Bytes()
}

func TestWAVDurationFromItsHeader(t *testing.T) {
	for _, c := range []struct {
		data []byte
		want time.Duration
		ok   bool
	}{
		{wav(44100, 2.5), 2500 * time.Millisecond, true},
		{wav(8000, 0.25), 250 * time.Millisecond, true},
		{[]byte("RIFF\x00\x00\x00\x00WAVE"), 0, false},
		{[]byte("ID3\x04 an mp3"), 0, false},
		{wav(44100, 1)[:30], 0, false},
	} {
		got, ok := wavDuration(c.data)
		if ok != c.ok || got != c.want {
			t.Errorf("%q: %v %v, want %v %v", c.data[:12], got, ok, c.want, c.ok)
		}
	}
}

// An audio block's header says how long it is; o opens an image or audio
// block (and reads a resource link), in the order they come.
func TestResultMediaDurationAndOpen(t *testing.T) {
	result := json.RawMessage(fmt.Sprintf(`{"content":[
		{"type":"audio","data":%q,"mimeType":"audio/wav"},
		{"type":"resource_link","uri":"demo://x","name":"x"},
		{"type":"image","data":%q,"mimeType":"image/png"}]}`,
		base64.StdEncoding.EncodeToString(wav(22050, 1.5)), base64.StdEncoding.EncodeToString(knownPNG(t))))
	r, _ := showResult(themes.Dark(), nil, 120, 35, result)
	if text := ansi.Strip(resultText(r)); !strings.Contains(text, "duration 1.5s") {
		t.Fatalf("no duration in\n%s", text)
	}
	o := tea.KeyPressMsg{Code: 'o', Text: "o"}
	first, ok := r.Update(o)().(OpenMediaMsg)
	if !ok || first.MimeType != "audio/wav" || !bytes.Equal(first.Data, wav(22050, 1.5)) || first.Name != "screenshot-0" {
		t.Fatalf("first o: %+v", first.MimeType)
	}
	if read, ok := r.Update(o)().(ReadResourceMsg); !ok || read.URI != "demo://x" {
		t.Fatalf("second o: %+v", read)
	}
	if img, ok := r.Update(o)().(OpenMediaMsg); !ok || img.MimeType != "image/png" || !bytes.Equal(img.Data, knownPNG(t)) {
		t.Fatal("third o did not open the image")
	}
}

// FuzzWAVDuration: a server's audio header never panics the reader.
func FuzzWAVDuration(f *testing.F) {
	f.Add(wav(44100, 1))
	f.Add(wav(8000, 0.5)[:30])
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEfmt \x10\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, ok := wavDuration(b); ok && d < 0 {
			t.Fatalf("negative duration %v", d)
		}
	})
}
