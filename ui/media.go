package ui

import (
	"fmt"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/openurl"
	"github.com/mcpscope/mcpscope/panes"
)

// openableMedia are the media types o hands to the system's viewer or
// player: pictures and sound, never a type the system might run.
var openableMedia = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
	"audio/wav": true, "audio/x-wav": true, "audio/wave": true, "audio/mpeg": true, "audio/mp3": true,
	"audio/ogg": true, "audio/flac": true, "audio/mp4": true, "audio/aac": true, "audio/webm": true,
}

// mediaFiles is the directory of the files o opened, made on first use
// and removed when the UI closes (Model.Close).
type mediaFiles struct {
	mu  sync.Mutex
	dir string
}

// write puts data in a new 0600 file of the directory, made 0700 on
// first use.
func (f *mediaFiles) write(stem, ext string, data []byte) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir == "" {
		dir, err := os.MkdirTemp("", "mcpscope-media-")
		if err != nil {
			return "", fmt.Errorf("make a temporary directory: %w", err)
		}
		f.dir = dir
	}
	file, err := os.CreateTemp(f.dir, stem+"-*"+ext) // 0600
	if err != nil {
		return "", fmt.Errorf("make a temporary file: %w", err)
	}
	if _, err := file.Write(data); err != nil {
		_ = file.Close()
		return "", fmt.Errorf("write %s: %w", file.Name(), err)
	}
	return file.Name(), file.Close()
}

// remove deletes the directory and what o put in it.
func (f *mediaFiles) remove() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" {
		_ = os.RemoveAll(f.dir) // a temporary directory: nothing to tell anyone
		f.dir = ""
	}
}

// openMedia is o on an image or audio block: the bytes go to a temporary
// file (0600, removed at exit) that the system's opener shows or plays.
// Only the picture and sound types of openableMedia are opened.
func (m *Model) openMedia(msg panes.OpenMediaMsg) tea.Cmd {
	mt, _, err := mime.ParseMediaType(msg.MimeType)
	switch {
	case msg.Data == nil:
		m.setNote("not opened: "+msg.What, false)
		return nil
	case err != nil || !openableMedia[strings.ToLower(mt)]:
		m.setNote(fmt.Sprintf("not opened: mcpscope opens only pictures and sound of known types, not %q; w writes it to a file", msg.MimeType), false)
		return nil
	}
	files := &m.mediaFiles
	stem, ext := SafeFileName(msg.Name), ExtensionFor(mt)
	return func() tea.Msg {
		path, err := files.write(stem, ext, msg.Data)
		if err != nil {
			return notedMsg{text: "not opened: " + err.Error(), ok: false}
		}
		opener, err := openurl.Opener()
		if err != nil {
			return notedMsg{text: "not opened: " + err.Error() + " (it is at " + path + " until you quit)", ok: false}
		}
		if err := openurl.Start(opener, path); err != nil {
			return notedMsg{text: "not opened: " + err.Error(), ok: false}
		}
		return notedMsg{text: fmt.Sprintf("opened %s with %s (%s, removed when you quit)", msg.What, filepath.Base(opener), path), ok: true}
	}
}
