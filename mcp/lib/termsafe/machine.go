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
// already escapes the C0 controls. Invalid UTF-8 bytes, which a JSON
// document may not hold and some terminals read as 8-bit controls, become
// \ufffd.
func EscapeJSON(b []byte) []byte { return escapeMachine(b, false) }

// EscapeXML is EscapeJSON for XML (JUnit reports): the same characters
// become character references (&#x202e;), which XML 1.0 allows for all of
// them.
func EscapeXML(b []byte) []byte { return escapeMachine(b, true) }

func escapeMachine(b []byte, xml bool) []byte {
	clean := true
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
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
		if xml {
			out.WriteString("&#x")
			for shift := 12; shift >= 0; shift -= 4 {
				out.WriteByte(hexDigits[(r>>shift)&0xf])
			}
			out.WriteByte(';')
			return
		}
		writeUEscape(&out, r)
	}
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
				esc(0x7f)
			} else {
				out.WriteByte(b[i])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			esc(utf8.RuneError)
		case unsafeRune(r):
			esc(r)
		default:
			out.Write(b[i : i+size])
		}
		i += size
	}
	return []byte(out.String())
}

// machineWriter applies EscapeJSON or EscapeXML to everything written.
type machineWriter struct {
	w    io.Writer
	xml  bool
	tail []byte // an incomplete UTF-8 sequence at the end of the last Write
}

// NewMachineWriter wraps w (a terminal) so that JSON (or, with xml, XML)
// written to it is escaped as EscapeJSON (EscapeXML) does. Write reports
// len(p) on success, whatever it wrote.
func NewMachineWriter(w io.Writer, xml bool) io.Writer { return &machineWriter{w: w, xml: xml} }

func (m *machineWriter) Write(p []byte) (int, error) {
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
	if _, err := m.w.Write(escapeMachine(buf, m.xml)); err != nil {
		return 0, err
	}
	return len(p), nil
}
