package termimage

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
)

// pngSignature starts every PNG file.
const pngSignature = "\x89PNG\r\n\x1a\n"

// dropBadAncillaryChunks is a PNG without its ancillary chunks (colour
// profiles, text, EXIF: the ones whose type starts with a lower-case
// letter) whose CRC is wrong, and the types it dropped; nil when it
// dropped nothing. Go's image/png refuses a file for any chunk's CRC,
// where libpng and so every browser only warns about an ancillary one
// and skips it: server-everything's get-tiny-image sends an iCCP chunk
// with a wrong CRC, which the Inspector shows and image/png would not.
func dropBadAncillaryChunks(data []byte) ([]byte, []string) {
	if !bytes.HasPrefix(data, []byte(pngSignature)) {
		return nil, nil
	}
	out := []byte(pngSignature)
	var dropped []string
	for rest := data[len(pngSignature):]; len(rest) > 0; {
		if len(rest) < 12 {
			return nil, nil // truncated: image/png's own error says so
		}
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-12) {
			return nil, nil
		}
		chunk := rest[:12+n]
		typ := chunk[4:8]
		sum := binary.BigEndian.Uint32(chunk[8+n:])
		if typ[0]&0x20 != 0 && crc32.ChecksumIEEE(chunk[4:8+n]) != sum {
			dropped = append(dropped, string(typ))
		} else {
			out = append(out, chunk...)
		}
		rest = rest[12+n:]
	}
	if len(dropped) == 0 {
		return nil, nil
	}
	return out, dropped
}

// droppedNote says which chunks were left out.
func droppedNote(types []string) string {
	return "drawn without its " + strings.Join(types, ", ") + " chunk (a wrong CRC; browsers skip it too)"
}
