package doctor

import (
	"fmt"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp"
)

// controlChars flags a server string that holds terminal control
// characters. Only metadata and log text are checked: tool output may
// legitimately carry a program's terminal output, and mcpscope escapes
// everything it draws anyway (package termsafe).
func (l *Linter) controlChars(f *mcp.Frame, what, s string) {
	r, ok := firstControl(s)
	if !ok {
		return
	}
	l.report("security/control-characters", fmt.Sprintf("The %s holds control character %U (%s).", what, r, controlName(r)), f.Seq)
}

// firstControl finds the first rune a terminal would act on: C0 controls
// other than tab and newline, DEL, C1 controls, and the bidi overrides and
// isolates that make text display differently from what it is.
func firstControl(s string) (rune, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20 || r == 0x7f:
			return r, true
		case r >= 0x80 && r <= 0x9f:
			return r, true
		case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

func controlName(r rune) string {
	switch {
	case r == 0x1b:
		return "ESC, starts terminal escape sequences"
	case r == 0x07:
		return "BEL"
	case r == '\r':
		return "carriage return, can overwrite the line"
	case r == 0x08:
		return "backspace"
	case r == 0x9b:
		return "8-bit CSI"
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return "bidi control, reorders displayed text"
	case r >= 0x80 && r <= 0x9f:
		return "C1 control"
	}
	return "C0 control"
}
