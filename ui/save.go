package ui

import (
	"errors"
	"fmt"
	gomime "mime"
	"os"
	"path"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/panes"
)

// saveBlob writes what a pane asked to save (a resource's blob, a result,
// a media block) to a new file in dir (the working directory when empty,
// --save-dir otherwise): named from the tool or resource, made safe, with
// an extension from its mime type, never replacing a file, mode 0600.
func saveBlob(dir string, msg panes.SaveBlobMsg) tea.Cmd {
	return func() tea.Msg {
		name, err := writeNew(dir, saveName(msg), msg.Data)
		if err != nil {
			return notedMsg{text: "save: " + err.Error(), ok: false}
		}
		if dir == "" {
			name = "./" + name
		}
		return notedMsg{text: fmt.Sprintf("saved %s of %s to %s (mode 0600)", plural.S(len(msg.Data), "byte"), termsafe.String(msg.URI), termsafe.String(name)), ok: true}
	}
}

// saveName is the file name for a save: "mcpscope-" and the safe stem
// (msg.Name, or the URI's last segment) with the mime type's extension.
// A name that already ends in that extension keeps it once; without a
// mime type a name's own extension stands, and a bare name gets ".bin".
func saveName(msg panes.SaveBlobMsg) string {
	stem := msg.Name
	if stem == "" {
		stem = path.Base(msg.URI)
	}
	stem = safeStem(stem)
	if stem == "" {
		stem = "resource"
	}
	own := path.Ext(stem)
	ext := ExtensionFor(msg.MimeType)
	switch {
	case msg.MimeType == "" && own != "":
		ext = ""
	case strings.EqualFold(own, ext):
		ext = ""
	}
	return "mcpscope-" + stem + ext
}

// knownExtensions are the extensions of the mime types MCP servers send
// most, chosen here because the system's table (mime.ExtensionsByType)
// varies by machine and lists ".jfif" before ".jpg".
var knownExtensions = map[string]string{
	"application/json": ".json", "application/octet-stream": ".bin", "application/pdf": ".pdf",
	"application/xml": ".xml", "application/zip": ".zip", "application/gzip": ".gz",
	"application/javascript": ".js", "application/yaml": ".yaml", "application/x-yaml": ".yaml",
	"application/sql": ".sql", "application/wasm": ".wasm",
	"text/plain": ".txt", "text/markdown": ".md", "text/html": ".html", "text/css": ".css",
	"text/csv": ".csv", "text/xml": ".xml", "text/javascript": ".js", "text/yaml": ".yaml",
	"image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/gif": ".gif",
	"image/webp": ".webp", "image/svg+xml": ".svg", "image/bmp": ".bmp", "image/avif": ".avif",
	"image/x-icon": ".ico", "image/vnd.microsoft.icon": ".ico", "image/tiff": ".tiff",
	"audio/wav": ".wav", "audio/x-wav": ".wav", "audio/wave": ".wav", "audio/mpeg": ".mp3",
	"audio/mp3": ".mp3", "audio/ogg": ".ogg", "audio/flac": ".flac", "audio/aac": ".aac",
	"audio/webm": ".weba", "audio/mp4": ".m4a", "video/mp4": ".mp4", "video/webm": ".webm",
}

// ExtensionFor is the file extension for a mime type (parameters and case
// ignored): image/png -> .png, application/json -> .json, text/plain ->
// .txt, a "+json" or "+xml" type -> .json or .xml, else what the system
// knows, else ".bin".
func ExtensionFor(mimeType string) string {
	mt, _, err := gomime.ParseMediaType(mimeType)
	if err != nil {
		return ".bin"
	}
	if ext, ok := knownExtensions[mt]; ok {
		return ext
	}
	switch {
	case strings.HasSuffix(mt, "+json"):
		return ".json"
	case strings.HasSuffix(mt, "+xml"):
		return ".xml"
	}
	if exts, _ := gomime.ExtensionsByType(mt); len(exts) > 0 {
		if ext := exts[0]; safeStem(ext[1:]) == ext[1:] {
			return ext
		}
	}
	return ".bin"
}

// maxFileName bounds a saved file's name (most file systems allow 255 bytes).
const maxFileName = 100

// SafeFileName makes a server-chosen name (a resource URI's last segment)
// safe as a file name: only ASCII letters, digits, '.', '-' and '_' are
// kept (control characters, escape sequences, separators and anything a
// shell or terminal may read otherwise become '_'), no leading dot, at
// most 100 bytes; "resource.bin" when nothing is left.
func SafeFileName(name string) string {
	if out := safeStem(name); out != "" {
		return out
	}
	return "resource.bin"
}

// safeStem is SafeFileName without the fallback: "" when nothing is left.
func safeStem(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= maxFileName {
			break
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if strings.Trim(out, "_") == "" {
		return ""
	}
	return out
}

// writeNew writes data to name in dir (the working directory when empty)
// without replacing a file that is already there: name-2.ext, name-3.ext,
// ... are tried. The file is 0600: it holds what a server returned, which
// may be about the user. It returns the path written.
func writeNew(dir, name string, data []byte) (string, error) {
	ext := path.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i <= 1000; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s-%d%s", stem, i, ext)
		}
		if dir != "" {
			candidate = filepath.Join(dir, candidate)
		}
		f, err := os.OpenFile(candidate, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if _, err := f.Write(data); err != nil {
			_ = f.Close()
			return "", err
		}
		return candidate, f.Close()
	}
	return "", fmt.Errorf("%s and 999 numbered variants already exist", filepath.Join(dir, name))
}
