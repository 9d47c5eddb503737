package jsonview

import (
	"sync"
	"unsafe"
)

// A 20 MB result is read by several readers one after the other: the
// reader's check (Valid), the envelope, the doctor, the session and the
// result view each find the end of its text again, and a text that holds
// JSON is a 20 MB string dense with escapes. Bytes declared immutable
// (a frame's, which never change once read) keep the ends of their long
// strings: each is found once, and every later reader of the same bytes,
// through any view of them, jumps to it.

// longString is the length from which a string's end is kept.
const longString = 64 << 10

// immutableKept is how many buffers keep their strings' ends: the most
// recent ones (a big frame is read by all its readers within moments).
const immutableKept = 4

var immutable struct {
	sync.Mutex
	bufs []*immutableBuf // most recent last
}

type immutableBuf struct {
	buf  []byte // held, so its address is not reused while it is here
	ends map[int]stringEnd
}

// stringEnd is where a long string ends: the offset after its closing
// quote, relative to its opening quote, and whether it was checked
// (validString) rather than only skipped.
type stringEnd struct {
	n     int
	valid bool
}

// Immutable declares that buf will never change: the ends of its long
// strings are kept once found, for every later reader of buf (or of a
// view of it). Only for bytes nobody writes afterwards, such as a frame's.
// Small buffers are not kept.
func Immutable(buf []byte) {
	if len(buf) < longString {
		return
	}
	immutable.Lock()
	defer immutable.Unlock()
	if len(immutable.bufs) == immutableKept {
		copy(immutable.bufs, immutable.bufs[1:])
		immutable.bufs = immutable.bufs[:immutableKept-1]
	}
	immutable.bufs = append(immutable.bufs, &immutableBuf{buf: buf, ends: map[int]stringEnd{}})
}

// keptEnd finds the string that starts at data[i] among the immutable
// buffers: b and the quote's offset in it (b nil when data[i] is in none
// of them); n > 0 is its known length, when it is known and within data
// (and checked, if valid is asked for).
func keptEnd(data []byte, i int, valid bool) (b *immutableBuf, off, n int) {
	immutable.Lock()
	defer immutable.Unlock()
	p := uintptr(unsafe.Pointer(&data[i]))
	for _, kb := range immutable.bufs {
		base := uintptr(unsafe.Pointer(&kb.buf[0]))
		if p < base || p-base >= uintptr(len(kb.buf)) {
			continue
		}
		off = int(p - base)
		// The answer depends on the bytes from the quote to its end
		// only, and they are b's: any view that holds them gets it.
		if e, ok := kb.ends[off]; ok && e.n <= len(data)-i && (e.valid || !valid) {
			return kb, off, e.n
		}
		return kb, off, 0
	}
	return nil, 0, 0
}

// keepEnd records the length n of the string at offset off of b.
func keepEnd(b *immutableBuf, off, n int, valid bool) {
	immutable.Lock()
	defer immutable.Unlock()
	if e, ok := b.ends[off]; !ok || valid && !e.valid {
		b.ends[off] = stringEnd{n: n, valid: valid}
	}
}
