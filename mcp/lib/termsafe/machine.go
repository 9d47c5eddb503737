package termsafe

import (
	"io"
	"strings"
	"unicode/utf8"
)

// EscapeJSON makes valid JSON safe to print on a terminal without changing
// what it means: DEL, C1 controls, line separators, bidi and zero-width
// characters become \uXXXX escapes (they can only be inside strings in
// valid JSON, where the escape is the same character). encoding/json
// already escapes the C0 controls; one that is there all the same (a
// document that is not JSON) is escaped too, CR included, which JSON
// writers do not put between tokens. Invalid UTF-8 bytes, which a JSON
// document may not hold and some terminals read as 8-bit controls, become
// \ufffd.
func EscapeJSON(b []byte) []byte { return escapeStream(b, modeJSON) }

// EscapeXML is EscapeJSON for XML and HTML (JUnit reports, an HTML
// export): the same characters become character references (&#x202e;),
// which XML 1.0 allows for all but the C0 controls (and those may not be
// in an XML document at all).
func EscapeXML(b []byte) []byte { return escapeStream(b, modeXML) }

// EscapeText is [Block] for a stream of text on its way to a terminal (a
// Markdown report, a text listing): line feeds and tabs stay (a terminal
// only moves the cursor forward for them), everything else Block escapes
// is escaped the same way (a CR, even before a line feed, is shown as \r:
// the output is for reading what was sent).
func EscapeText(b []byte) []byte { return escapeStream(b, modeText) }

// escape modes: how an unsafe character is written.
const (
	modeJSON = iota // \uXXXX
	modeXML         // &#xXXXX;
	modeText        // as Block writes it: \x1b, \r, \u202e, \xff
)

// streamSafe reports whether the ASCII byte c passes as it is: printable
// characters, line feeds and tabs.
func streamSafe(c byte) bool {
	if c >= 0x20 {
		return c != 0x7f
	}
	return c == '\n' || c == '\t'
}

func escapeStream(b []byte, mode int) []byte {
	clean := true
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if !streamSafe(b[i]) {
				clean = false
				break
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			clean = false
			break
		}
		i += size
	}
	if clean {
		return b
	}
	var out strings.Builder
	out.Grow(len(b) + 32)
	esc := func(r rune) {
		switch mode {
		case modeXML:
			out.WriteString("&#x")
			for shift := 12; shift >= 0; shift -= 4 {
				out.WriteByte(hexDigits[(r>>shift)&0xf])
			}
			out.WriteByte(';')
		case modeText:
			if r < utf8.RuneSelf {
				writeASCIIEscape(&out, byte(r))
				return
			}
			writeUEscape(&out, r)
		default:
			writeUEscape(&out, r)
		}
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if streamSafe(b[i]) {
				out.WriteByte(b[i])
			} else {
				esc(rune(b[i]))
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			if mode == modeText {
				writeByteEscape(&out, b[i])
			} else {
				esc(utf8.RuneError)
			}
		case unsafeRune(r):
			esc(r)
		default:
			out.Write(b[i : i+size])
		}
		i += size
	}
	return []byte(out.String())
}

// streamWriter applies escapeStream to everything written.
type streamWriter struct {
	w    io.Writer
	mode int
	tail []byte // an incomplete UTF-8 sequence at the end of the last Write
}

// NewMachineWriter wraps w (a terminal) so that JSON (or, with xml, XML)
// written to it is escaped as EscapeJSON (EscapeXML) does. Write reports
// len(p) on success, whatever it wrote.
func NewMachineWriter(w io.Writer, xml bool) io.Writer {
	if xml {
		return &streamWriter{w: w, mode: modeXML}
	}
	return &streamWriter{w: w, mode: modeJSON}
}

// NewTextWriter wraps w (a terminal) so that text written to it is
// escaped as EscapeText does. Write reports len(p) on success, whatever it
// wrote.
func NewTextWriter(w io.Writer) io.Writer { return &streamWriter{w: w, mode: modeText} }

func (m *streamWriter) Write(p []byte) (int, error) {
	buf := append(m.tail, p...)
	m.tail = nil
	// Keep an incomplete rune for the next Write (at most 3 bytes).
	for k := 1; k <= 3 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				m.tail = append([]byte(nil), buf[len(buf)-k:]...)
				buf = buf[:len(buf)-k]
			}
			break
		}
	}
	if _, err := m.w.Write(escapeStream(buf, m.mode)); err != nil {
		return 0, err
	}
	return len(p), nil
}
