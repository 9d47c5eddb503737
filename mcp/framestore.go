package mcp

import (
	"encoding/binary"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
	"weak"
)

// FrameStore keeps every frame of a long session compactly, for a viewer
// that holds all of them for as long as it runs (the TUI's log, a session
// file being opened). A *Frame costs a struct, a separate allocation for
// its bytes and one per string, all on the Go heap, where the collector
// lets the heap grow to twice what is live: several times the size of a
// small notification. The store packs each frame into one record (a few
// bytes of varints, then the bytes exactly as on the wire) appended to
// large chunks mapped outside the Go heap (arena_unix.go),
// which cost what they hold and are never scanned by the collector. A
// *Frame is rebuilt from its record when something needs one (the rows on
// screen, the detail view).
//
// Nothing is dropped or changed: a rebuilt frame has every field of the
// frame that was added, its Raw the same bytes (tests compare each field).
// Times keep their instant and zone but lose the monotonic clock reading
// (latencies are computed before a frame is published). A frame over
// bigFrame bytes keeps its Raw where it already is (a large result is not
// copied once more); only its small record goes to the arena.
//
// Rebuilt frames keep their identity: as long as a *Frame from Frame(i) is
// held anywhere (a diagnostic's frames, the detail view), Frame(i) returns
// that same pointer, so pointer-keyed lookups keep working.
//
// Add, Frame, View and FindSeq are called from one goroutine (the UI's);
// the frames they return are immutable and may be read anywhere. The
// arena's memory is never unmapped, so the bytes of a rebuilt frame stay
// valid for the life of the process.
type FrameStore struct {
	id uint32 // stamped into the frames rebuilt here (Frame.home)

	recs   []uint64 // per frame: chunk index << 32 | offset of its record
	chunks [][]byte // arena chunks; the last small one is being filled
	fill   int      // index in chunks of the chunk being filled, -1 before the first
	used   int      // bytes used in chunks[fill]
	mapped int64    // bytes of arena mapped
	big    [][]byte // the Raw of frames over bigFrame, referenced, not copied
	bigRaw int64    // their bytes
	base   int64    // Unix nanoseconds of the first frame with a time
	hasBas bool
	names  []string // interned strings: transports, methods, stream names
	nameID map[string]uint32
	zones  map[zoneKey]*time.Location
	buf    []byte // scratch for encoding a record

	mu   sync.Mutex // guards live (cleanups run on their own goroutine)
	live map[int32]weak.Pointer[Frame]
}

type zoneKey struct {
	name   string
	offset int
}

const (
	chunkSize = 1 << 20  // a small frame's record goes in a shared chunk of this size
	bigFrame  = 64 << 10 // a frame over this keeps its Raw where it is
	maxNames  = 4096     // interned strings at most; later ones are stored inline
	maxIntern = 64       // longer strings are stored inline
)

// Field presence bits (the record's third byte): fields that are usually
// empty cost one bit when they are.
const (
	hasID = 1 << iota
	hasProblem
	hasReplyTo
	hasReplyToMethod
	hasLatency
	hasBatchSeq
	hasStream
	hasError
)

// Time zone kinds (the low bits of the record's second byte).
const (
	zoneNone  = iota // the zero time
	zoneUTC          // UTC
	zoneLocal        // time.Local
	zoneFixed        // any other zone: its name and offset at that instant
)

// rawBig marks a record whose Raw is referenced in big, not copied.
const rawBig = 1 << 2

// byTap is the flags bit of a frame a tap wrote itself (Frame.ByTap).
const byTap = 1 << 3

// hasSession is the flags bit of a frame with a ClientSession, stored
// after its error.
const hasSession = 1 << 4

var storeIDs atomic.Uint32

// NewFrameStore makes an empty store.
func NewFrameStore() *FrameStore {
	return &FrameStore{
		id:     storeIDs.Add(1),
		fill:   -1,
		nameID: map[string]uint32{},
		zones:  map[zoneKey]*time.Location{},
		live:   map[int32]weak.Pointer[Frame]{},
	}
}

// Len is the number of frames stored.
func (s *FrameStore) Len() int { return len(s.recs) }

// Footprint is the memory the store holds: the arena mapped, the record
// index, the interned strings' table and the Raw of big frames it
// references (which it shares with whoever else holds them).
func (s *FrameStore) Footprint() int64 {
	return s.mapped + int64(cap(s.recs))*8 + int64(cap(s.big))*24 + s.bigRaw
}

// Add stores a copy of f and returns its index. f itself is not kept
// (except the Raw of a big frame) and may be collected once its other
// holders let it go.
func (s *FrameStore) Add(f *Frame) int {
	b := s.encode(f)
	var raw []byte
	if len(f.Raw) <= bigFrame {
		raw = f.Raw
	}
	n := len(b) + len(raw)
	chunk, off := s.place(n)
	dst := s.chunks[chunk][off : off+n]
	copy(dst, b)
	copy(dst[len(b):], raw)
	s.recs = append(s.recs, uint64(chunk)<<32|uint64(off))
	return len(s.recs) - 1
}

// place finds n bytes of arena: in the chunk being filled, in a new one,
// or in a mapping of their own when they would not fit a chunk.
func (s *FrameStore) place(n int) (chunk, off int) {
	if n > chunkSize/4 {
		s.chunks = append(s.chunks, s.mapChunk(n))
		return len(s.chunks) - 1, 0
	}
	if s.fill < 0 || s.used+n > len(s.chunks[s.fill]) {
		s.chunks = append(s.chunks, s.mapChunk(chunkSize))
		s.fill, s.used = len(s.chunks)-1, 0
	}
	off = s.used
	s.used += n
	return s.fill, off
}

func (s *FrameStore) mapChunk(n int) []byte {
	page := 4096
	n = (n + page - 1) / page * page
	b := arenaAlloc(n)
	s.mapped += int64(len(b))
	return b
}

func (s *FrameStore) encode(f *Frame) []byte {
	b := s.buf[:0]
	b = append(b, byte(f.Dir)&3|byte(f.Kind&7)<<2|boolBit(f.UnknownID, 5)|boolBit(f.Duplicate, 6)|boolBit(f.Probe, 7))
	zone, zname, zoff := zoneNone, "", 0
	if !f.Time.IsZero() {
		switch loc := f.Time.Location(); loc {
		case time.UTC:
			zone = zoneUTC
		case time.Local:
			zone = zoneLocal
		default:
			zone = zoneFixed
			zname, zoff = f.Time.Zone()
		}
	}
	flags := byte(zone)
	if len(f.Raw) > bigFrame {
		flags |= rawBig
	}
	if f.ByTap {
		flags |= byTap
	}
	if f.ClientSession != 0 {
		flags |= hasSession
	}
	b = append(b, flags)
	var has byte
	for i, set := range [...]bool{f.ID != "", f.Problem != "", f.ReplyTo != 0, f.ReplyToMethod != "",
		f.Latency != 0, f.BatchSeq != 0, f.Stream != "", f.ErrorCode != 0 || f.ErrorMessage != ""} {
		if set {
			has |= 1 << i
		}
	}
	b = append(b, has)
	b = binary.AppendVarint(b, f.Seq)
	if zone != zoneNone {
		ns := f.Time.UnixNano()
		if !s.hasBas {
			s.base, s.hasBas = ns, true
		}
		b = binary.AppendVarint(b, ns-s.base)
		if zone == zoneFixed {
			b = binary.AppendVarint(b, int64(zoff))
			b = s.appendString(b, zname, true)
		}
	}
	b = s.appendString(b, f.Transport, true)
	b = s.appendString(b, f.Method, true)
	if has&hasID != 0 {
		b = s.appendString(b, string(f.ID), false)
	}
	if has&hasProblem != 0 {
		b = s.appendString(b, f.Problem, false)
	}
	if has&hasReplyTo != 0 {
		b = binary.AppendVarint(b, f.ReplyTo)
	}
	if has&hasReplyToMethod != 0 {
		b = s.appendString(b, f.ReplyToMethod, true)
	}
	if has&hasLatency != 0 {
		b = binary.AppendVarint(b, int64(f.Latency))
	}
	if has&hasBatchSeq != 0 {
		b = binary.AppendVarint(b, f.BatchSeq)
	}
	if has&hasStream != 0 {
		b = s.appendString(b, f.Stream, true)
	}
	if has&hasError != 0 {
		b = binary.AppendVarint(b, int64(f.ErrorCode))
		b = s.appendString(b, f.ErrorMessage, false)
	}
	if flags&hasSession != 0 {
		b = binary.AppendVarint(b, int64(f.ClientSession))
	}
	if flags&rawBig != 0 {
		b = binary.AppendUvarint(b, uint64(len(s.big)))
		s.big = append(s.big, f.Raw)
		s.bigRaw += int64(len(f.Raw))
	} else {
		b = binary.AppendUvarint(b, uint64(len(f.Raw)))
	}
	s.buf = b
	return b
}

func boolBit(v bool, bit uint) byte {
	if v {
		return 1 << bit
	}
	return 0
}

// appendString writes a string as an interned name (even varint) or
// inline, its length (odd varint) then its bytes.
func (s *FrameStore) appendString(b []byte, v string, intern bool) []byte {
	if intern && len(v) <= maxIntern {
		id, ok := s.nameID[v]
		if !ok && len(s.names) < maxNames {
			id, ok = uint32(len(s.names)), true
			s.names = append(s.names, v)
			s.nameID[v] = id
		}
		if ok {
			return binary.AppendUvarint(b, uint64(id)<<1)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(v))<<1|1)
	return append(b, v...)
}

// reader decodes one record.
type reader struct {
	s   *FrameStore
	b   []byte
	pos int
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b[r.pos:])
	r.pos += n
	return v
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b[r.pos:])
	r.pos += n
	return v
}

// bytes is the next n bytes of the record, capped so that appending to
// them can never write over the next record.
func (r *reader) bytes(n int) []byte {
	v := r.b[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return v
}

// string is an interned name, or inline bytes viewed in place: the arena
// is never written twice nor freed, so the string is as immutable as any.
func (r *reader) string() string {
	x := r.uvarint()
	if x&1 == 0 {
		return r.s.names[x>>1]
	}
	n := int(x >> 1)
	if n == 0 {
		return ""
	}
	v := r.bytes(n)
	return unsafe.String(&v[0], n)
}

func (s *FrameStore) record(i int) reader {
	loc := s.recs[i]
	c := s.chunks[loc>>32]
	return reader{s: s, b: c[uint32(loc):]}
}

// View rebuilds frame i into f without keeping it: for reading fields of
// many frames (a filter over the whole log). Use Frame where identity
// matters.
func (s *FrameStore) View(i int, f *Frame) {
	r := s.record(i)
	b0, flags, has := r.b[0], r.b[1], r.b[2]
	r.pos = 3
	*f = Frame{
		Dir:       Direction(b0 & 3),
		Kind:      Kind(b0 >> 2 & 7),
		UnknownID: b0&(1<<5) != 0,
		Duplicate: b0&(1<<6) != 0,
		Probe:     b0&(1<<7) != 0,
		ByTap:     flags&byTap != 0,
	}
	f.Seq = r.varint()
	if zone := flags & 3; zone != zoneNone {
		f.Time = time.Unix(0, s.base+r.varint())
		switch zone {
		case zoneUTC:
			f.Time = f.Time.UTC()
		case zoneFixed:
			off := int(r.varint())
			name := r.string()
			f.Time = f.Time.In(s.zone(name, off))
		}
	}
	f.Transport = r.string()
	f.Method = r.string()
	if has&hasID != 0 {
		f.ID = ID(r.string())
	}
	if has&hasProblem != 0 {
		f.Problem = r.string()
	}
	if has&hasReplyTo != 0 {
		f.ReplyTo = r.varint()
	}
	if has&hasReplyToMethod != 0 {
		f.ReplyToMethod = r.string()
	}
	if has&hasLatency != 0 {
		f.Latency = time.Duration(r.varint())
	}
	if has&hasBatchSeq != 0 {
		f.BatchSeq = r.varint()
	}
	if has&hasStream != 0 {
		f.Stream = r.string()
	}
	if has&hasError != 0 {
		f.ErrorCode = int(r.varint())
		f.ErrorMessage = r.string()
	}
	if flags&hasSession != 0 {
		f.ClientSession = int(r.varint())
	}
	if flags&rawBig != 0 {
		f.Raw = s.big[r.uvarint()]
	} else if n := int(r.uvarint()); n > 0 {
		f.Raw = r.bytes(n)
	}
	f.home, f.ref = s.id, int32(i)+1
}

// zone is a fixed zone by name and offset, made once.
func (s *FrameStore) zone(name string, off int) *time.Location {
	k := zoneKey{name, off}
	if z, ok := s.zones[k]; ok {
		return z
	}
	z := time.FixedZone(name, off)
	s.zones[k] = z
	return z
}

// Seq is frame i's sequence number, read without rebuilding the frame.
func (s *FrameStore) Seq(i int) int64 {
	r := s.record(i)
	r.pos = 3
	return r.varint()
}

// Frame is frame i, rebuilt; while a rebuilt *Frame is held anywhere, the
// same pointer is returned.
func (s *FrameStore) Frame(i int) *Frame {
	s.mu.Lock()
	wp, ok := s.live[int32(i)]
	s.mu.Unlock()
	if ok {
		if f := wp.Value(); f != nil {
			return f
		}
	}
	f := new(Frame)
	s.View(i, f)
	s.mu.Lock()
	s.live[int32(i)] = weak.Make(f)
	s.mu.Unlock()
	runtime.AddCleanup(f, s.forget, int32(i))
	return f
}

// forget drops the identity entry of a rebuilt frame nobody holds any more.
func (s *FrameStore) forget(i int32) {
	s.mu.Lock()
	if wp, ok := s.live[i]; ok && wp.Value() == nil {
		delete(s.live, i)
	}
	s.mu.Unlock()
}

// Index is the index of a frame rebuilt by this store, or -1 for any
// other frame.
func (s *FrameStore) Index(f *Frame) int {
	if s == nil || f == nil || f.home != s.id || f.ref == 0 {
		return -1
	}
	return int(f.ref) - 1
}

// FindSeq is the index of the frame with sequence number seq among the
// frames from index from on (one connection's frames: Seq restarts on a
// reconnect), or -1. Sequence numbers rise in the order frames are added,
// so it is a binary search, checked, with a scan when the order was not
// kept.
func (s *FrameStore) FindSeq(from int, seq int64) int {
	lo, hi := max(from, 0), len(s.recs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.Seq(mid) < seq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(s.recs) && s.Seq(lo) == seq {
		return lo
	}
	for i := len(s.recs) - 1; i >= max(from, 0); i-- {
		if s.Seq(i) == seq {
			return i
		}
	}
	return -1
}

// Kind is frame i's kind, read without rebuilding the frame.
func (s *FrameStore) Kind(i int) Kind {
	r := s.record(i)
	return Kind(r.b[0] >> 2 & 7)
}

// Mapped is the arena's size: the memory the store holds outside the Go
// heap (what runtime.MemStats does not see).
func (s *FrameStore) Mapped() int64 { return s.mapped }
