package panes

import (
	"encoding/base64"
	"encoding/binary"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// OpenMediaMsg asks the root to open a media block with the system's
// viewer or player, through a temporary file (ui/media.go).
type OpenMediaMsg struct {
	What     string // what it is, for the status line
	Name     string // a file name stem
	MimeType string
	Data     []byte
}

// openTarget is what o opens next: a resource (read with resources/read)
// or a media block (handed to the system's viewer or player).
type openTarget struct {
	uri   string
	media *mediaBlob
}

// open is o on target: a read of the resource, or the media decoded off
// the UI goroutine and handed to the root.
func (r *Result) open(t openTarget) tea.Cmd {
	if t.media == nil {
		uri := t.uri
		return func() tea.Msg { return ReadResourceMsg{URI: uri} }
	}
	m, call := *t.media, r.msg.Name
	return func() tea.Msg {
		data, err := base64.StdEncoding.DecodeString(m.data)
		if err != nil {
			return OpenMediaMsg{What: "its base64 does not decode"}
		}
		return OpenMediaMsg{What: "a " + orDash(m.mime) + " content block of tools/call " + call, Name: m.name, MimeType: m.mime, Data: data}
	}
}

// audioDuration is an audio block's length where its header says it
// (WAV), read from the first bytes of its base64; "" otherwise.
func audioDuration(b64 string) string {
	head := b64[:min(len(b64), 8<<10)]
	raw, _ := base64.StdEncoding.DecodeString(head[:len(head)/4*4])
	d, ok := wavDuration(raw)
	if !ok {
		return ""
	}
	return d.Round(time.Millisecond).String()
}

// wavDuration reads a RIFF WAVE header: the fmt chunk's byte rate and the
// data chunk's declared size, which need only the file's first bytes.
func wavDuration(b []byte) (time.Duration, bool) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, false
	}
	var byteRate uint32
	for rest := b[12:]; len(rest) >= 8; {
		id, size := string(rest[:4]), binary.LittleEndian.Uint32(rest[4:8])
		switch id {
		case "fmt ":
			if len(rest) < 20 {
				return 0, false
			}
			byteRate = binary.LittleEndian.Uint32(rest[16:20])
		case "data":
			if byteRate == 0 {
				return 0, false
			}
			return time.Duration(float64(size) / float64(byteRate) * float64(time.Second)), true
		}
		skip := 8 + uint64(size) + uint64(size&1) // chunks are padded to even sizes
		if skip > uint64(len(rest)) {
			return 0, false
		}
		rest = rest[skip:]
	}
	return 0, false
}

// isWAV reports whether a MIME type names WAV audio.
func isWAV(mime string) bool {
	mime = strings.ToLower(mime)
	return strings.Contains(mime, "wav") || strings.Contains(mime, "wave")
}

// durationMeta is an audio block's duration for its header line.
func durationMeta(b64, mime string, label func(...string) string, value func(string) string) string {
	if d := audioDuration(b64); d != "" {
		return label("  duration ") + value(d)
	}
	if isWAV(mime) {
		return label("  duration ") + value("unreadable (not a complete WAV header)")
	}
	return ""
}
