package jsonview

import (
	"encoding/binary"
	"math/bits"
)

// Text that holds JSON (a JSON text sent as a tool's text) is full of \"
// once it is itself a JSON string: a quote or a backslash every few bytes.
// Jumping from quote to quote or skipping plain words then stops at every
// few bytes, which is no faster than a loop over each byte. The string's long
// stretches are read here 64 bytes at a time instead: one bit a byte for
// its quotes, backslashes and control characters, and which bytes are
// escaped worked out from runs of backslashes with a few word operations
// (the method of simdjson, Langdale and Lemire, "Parsing Gigabytes of JSON
// per Second", 2019), so the end of a long string of escaped JSON is
// found several times faster (BenchmarkJSONText20MB).

// byteMask has the top bit of each of w's eight bytes set where that byte
// is c (exactly: no borrow from one byte into the next).
func byteMask(w, c uint64) uint64 {
	x := w ^ (lanes * c)
	return ^(((x &^ high) + (lanes * 0x7f)) | x) & high
}

// controlMask has the top bit set in each byte of w below 0x20.
func controlMask(w uint64) uint64 {
	return ^(((w &^ high) + (lanes * 0x60)) | w) & high
}

// gather turns the top bits of w's bytes into eight bits, byte 0's first.
func gather(m uint64) uint64 {
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// masks64 gives a bit for each of b[:64]'s quotes, backslashes and (with
// control) control characters; bit k is b[k].
func masks64(b []byte, control bool) (quote, backslash, ctl uint64) {
	_ = b[63]
	for k := 0; k < 64; k += 8 {
		w := binary.LittleEndian.Uint64(b[k:])
		quote |= gather(byteMask(w, '"')) << k
		backslash |= gather(byteMask(w, '\\')) << k
		if control {
			ctl |= gather(controlMask(w)) << k
		}
	}
	return quote, backslash, ctl
}

// escapedBytes marks the bytes that a backslash escapes (the byte after
// an odd run of backslashes). carry is 1 when the previous block's last
// backslash escapes this block's first byte, and is set for the next.
func escapedBytes(backslash uint64, carry *uint64) uint64 {
	const even = 0x5555555555555555
	backslash &^= *carry // an escaped backslash escapes nothing
	follows := backslash<<1 | *carry
	oddStarts := backslash &^ even &^ follows
	sum, over := bits.Add64(oddStarts, backslash, 0)
	*carry = over
	return (even ^ (sum << 1)) & follows
}

// skipStringBlocks returns the index after the closing quote of the
// string that data[i] is inside of (not in the middle of an escape), or
// len(data) when it is not closed.
func skipStringBlocks(data []byte, i int) int {
	var carry uint64
	for ; i+64 <= len(data); i += 64 {
		quote, backslash, _ := masks64(data[i:], false)
		if quote = quote &^ escapedBytes(backslash, &carry); quote != 0 {
			return i + bits.TrailingZeros64(quote) + 1
		}
	}
	if carry != 0 {
		i++ // the last block's backslash escapes this byte
	}
	for ; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// validStringBlocks is validString from data[i], inside the string and
// not in the middle of an escape: the index after the closing quote and
// whether every byte and escape up to it is allowed.
func validStringBlocks(data []byte, i int) (int, bool) {
	var carry uint64
	for ; i+64 <= len(data); i += 64 {
		quote, backslash, ctl := masks64(data[i:], true)
		escaped := escapedBytes(backslash, &carry)
		quote &^= escaped
		before := ^uint64(0) // the bytes before the closing quote
		if quote != 0 {
			before = quote&-quote - 1
		}
		if ctl&before != 0 {
			return i + bits.TrailingZeros64(ctl&before), false
		}
		for e := escaped & before; e != 0; e &= e - 1 {
			p := i + bits.TrailingZeros64(e)
			switch data[p] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-p < 5 || !isHex(data[p+1]) || !isHex(data[p+2]) || !isHex(data[p+3]) || !isHex(data[p+4]) {
					return p - 1, false
				}
			default:
				return p - 1, false
			}
		}
		if quote != 0 {
			return i + bits.TrailingZeros64(quote) + 1, true
		}
	}
	if carry != 0 {
		i-- // back to the backslash, for the escape to be checked whole
	}
	return validStringFrom(data, i, false)
}
