package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// writeIndented writes valid JSON to w indented with two spaces, as
// jsonview.Indent(dst, raw, "  ") would (json.Indent's output, its
// indentation capped at jsonview.MaxIndentDepth levels), but streaming: a
// 100 MB result is not copied into a second 100 MB buffer, nor into the
// copies a growing buffer makes. Invalid JSON is written as it is.
func writeIndented(w io.Writer, raw []byte) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if !json.Valid(raw) {
		bw.Write(raw)
		return bw.Flush()
	}
	src := bytes.TrimLeft(raw, " \t\r\n")
	end := len(bytes.TrimRight(src, " \t\r\n"))
	depth, needIndent, inString, escaped := 0, false, false, false
	newline := func() {
		bw.WriteByte('\n')
		for range min(depth, jsonview.MaxIndentDepth) {
			bw.WriteString("  ")
		}
	}
	for i := 0; i < end; i++ {
		c := src[i]
		if inString {
			// Copy runs of plain string bytes at once.
			j := i
			for j < end && !escaped && src[j] != '"' && src[j] != '\\' {
				j++
			}
			if j > i {
				bw.Write(src[i:j])
				i = j - 1
				continue
			}
			bw.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		if needIndent && c != '}' && c != ']' {
			needIndent = false
			depth++
			newline()
		}
		switch c {
		case '"':
			inString = true
			bw.WriteByte(c)
		case '{', '[':
			needIndent = true
			bw.WriteByte(c)
		case ',':
			bw.WriteByte(c)
			newline()
		case ':':
			bw.WriteString(": ")
		case '}', ']':
			if needIndent {
				needIndent = false // an empty object or array stays {} or []
			} else {
				depth--
				newline()
			}
			bw.WriteByte(c)
		default:
			bw.WriteByte(c)
		}
	}
	bw.Write(src[end:]) // json.Indent keeps trailing space
	return bw.Flush()
}
