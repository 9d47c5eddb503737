package tap

import (
	"encoding/base64"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/mcp"
)

// appendFrameEntry encodes a frame as a session-file entry, the same
// fields record.FromEvent gives, without reflection: on a two-core machine
// the recorder shares the CPU with the client and the server, and
// encoding/json's reflection was most of its cost in a notification flood.
func appendFrameEntry(b []byte, f *mcp.Frame, stream string) []byte {
	b = append(b, `{"type":"frame","time":"`...)
	b = f.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","seq":`...)
	b = strconv.AppendInt(b, f.Seq, 10)
	b = appendStrField(b, "dir", f.Dir.String())
	b = appendStrField(b, "transport", f.Transport)
	b = appendStrField(b, "kind", f.Kind.String())
	b = appendStrField(b, "method", f.Method)
	b = appendStrField(b, "id", string(f.ID))
	if len(f.Raw) > 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, int64(len(f.Raw)), 10)
	}
	if utf8.Valid(f.Raw) {
		b = append(b, `,"raw":`...)
		b = appendJSONString(b, f.Raw)
	} else {
		b = append(b, `,"raw_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, f.Raw)
		b = append(b, '"')
	}
	b = appendStrField(b, "problem", f.Problem)
	if f.ReplyTo != 0 {
		b = append(b, `,"replyTo":`...)
		b = strconv.AppendInt(b, f.ReplyTo, 10)
	}
	if ms := float64(f.Latency.Microseconds()) / 1000; ms != 0 {
		b = append(b, `,"latencyMs":`...)
		b = strconv.AppendFloat(b, ms, 'f', -1, 64)
	}
	if f.UnknownID {
		b = append(b, `,"unknownId":true`...)
	}
	if f.Duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	if f.BatchSeq != 0 {
		b = append(b, `,"batchSeq":`...)
		b = strconv.AppendInt(b, f.BatchSeq, 10)
	}
	b = appendStrField(b, "stream", stream)
	if f.Probe {
		b = append(b, `,"probe":true`...)
	}
	if f.ByTap {
		b = append(b, `,"byTap":true`...)
	}
	if f.ErrorCode != 0 {
		b = append(b, `,"errorCode":`...)
		b = strconv.AppendInt(b, int64(f.ErrorCode), 10)
	}
	if f.ClientSession != 0 {
		b = append(b, `,"clientSession":`...)
		b = strconv.AppendInt(b, int64(f.ClientSession), 10)
	}
	return append(b, '}')
}

func appendStrField(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendJSONString(b, []byte(v))
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes valid UTF-8 as a JSON string: the escapes JSON
// requires, and U+2028/U+2029 as encoding/json does.
func appendJSONString(b, s []byte) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
