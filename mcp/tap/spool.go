package tap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// spool is the recorder's queue: what the copiers hand over, in order,
// without allocating and in bounded memory. Records (a 16-byte header and
// the bytes) go into a fixed ring; when the ring is full (the recorder,
// which runs at the lowest priority, fell behind in a flood), they go to
// an unlinked temporary file instead, and keep going there until the
// recorder has caught up on it. Nothing is dropped and a copier never
// waits for the recorder: it copies a message's bytes once, into memory
// or into the file's batch, and goes on. The file is written a batch at a
// time (spillBatch), not a record at a time: in a flood the copier reads
// one message per read, and two writes to the file for each would cost
// more than the copy itself.
//
// Events and HTTP frames (rare, already allocated) travel in objs, a FIFO
// beside the ring; a header-only record keeps their place in the order.
type spool struct {
	mu   sync.Mutex
	ring []byte
	r, w uint64 // read and write positions in the ring, ever growing

	spill          *os.File // nil until the ring first overflows
	spillR, spillW int64
	spilling       bool // records go to the file until it is drained
	spillDir       string
	spilled        int64 // bytes ever spilled, for the note in the record
	spillErr       error
	// batch holds spilled records, in order after the file's, until it
	// is full enough to write (or the reader takes it).
	batch []byte

	objs []chunk
	// late holds records, in order after the file's, when no file could
	// take them: memory grows rather than a record being lost.
	late []chunk

	idle   bool          // the recorder is waiting: the next put wakes it
	wake   chan struct{} // one slot
	closed bool
}

const (
	recHeader = 16
	// ringSize bounds the queue's memory: a flood beyond it waits on disk.
	ringSize = 256 << 10
	// spillRead is how much of the file the recorder reads at a time: two
	// of the largest records (a whole read of the copier's buffer).
	spillRead = 2 * (copyBuf + recHeader)
	// spillBatch is how much the spool gathers before it writes to the
	// file: one write for many records.
	spillBatch = 64 << 10
	// kindPad fills the ring's end when a record does not fit before it.
	kindPad chunkKind = 0xff
	// kindObj marks the place of the next chunk in objs.
	kindObj chunkKind = 0xfe
)

func newSpool(size int, spillDir string) *spool {
	return &spool{ring: make([]byte, size), spillDir: spillDir, wake: make(chan struct{}, 1)}
}

func padded(n int) int { return (n + recHeader - 1) &^ (recHeader - 1) }

func putHeader(b []byte, kind chunkKind, dir mcp.Direction, n int, at time.Time) {
	b[0], b[1], b[2], b[3] = byte(kind), byte(dir), 0, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	binary.LittleEndian.PutUint64(b[8:], uint64(at.UnixNano()))
}

// putData queues bytes that crossed the tap (or the server's stderr).
func (s *spool) putData(kind chunkKind, dir mcp.Direction, data []byte, at time.Time) {
	s.mu.Lock()
	if !s.closed {
		s.put(kind, dir, data, at)
	}
	s.mu.Unlock()
}

// putObj queues a chunk that is not plain bytes (an event, an HTTP frame).
func (s *spool) putObj(c chunk) {
	s.mu.Lock()
	if !s.closed {
		s.objs = append(s.objs, c)
		s.put(kindObj, 0, nil, c.at)
	}
	s.mu.Unlock()
}

// put writes one record; s.mu is held.
func (s *spool) put(kind chunkKind, dir mcp.Direction, data []byte, at time.Time) {
	defer s.wakeLocked()
	n := padded(recHeader + len(data))
	size := uint64(len(s.ring))
	if !s.spilling {
		off := s.w % size
		toEnd := size - off
		need := uint64(n)
		if need > toEnd {
			need += toEnd
		}
		if s.w-s.r+need <= size {
			if uint64(n) > toEnd {
				putHeader(s.ring[off:], kindPad, 0, int(toEnd)-recHeader, at)
				s.w += toEnd
				off = 0
			}
			putHeader(s.ring[off:], kind, dir, len(data), at)
			copy(s.ring[off+recHeader:], data)
			s.w += uint64(n)
			return
		}
		s.spilling = true
	}
	if s.spillErr == nil && len(s.late) == 0 {
		if s.spill == nil {
			s.spill, s.spillErr = openSpill(s.spillDir)
		}
		if s.spillErr == nil {
			s.batch = appendRecord(s.batch, kind, dir, data, at)
			s.spilled += int64(len(data))
			if len(s.batch) >= spillBatch {
				s.writeBatch()
			}
			return
		}
	}
	// No room in memory and no file to spill to: the record is kept in
	// memory after all (never dropped), in order, behind the file's.
	if kind == kindObj {
		s.late = append(s.late, s.objs[len(s.objs)-1])
		s.objs = s.objs[:len(s.objs)-1]
		return
	}
	s.late = append(s.late, chunk{kind: kind, dir: dir, data: append([]byte(nil), data...), at: at})
}

// appendRecord appends one record as the file holds it: its header, then
// its bytes, unpadded.
func appendRecord(b []byte, kind chunkKind, dir mcp.Direction, data []byte, at time.Time) []byte {
	var h [recHeader]byte
	putHeader(h[:], kind, dir, len(data), at)
	return append(append(b, h[:]...), data...)
}

// writeBatch writes the batch to the file; s.mu is held. When the file
// fails, the batch's records move to late, in order, and the rest of the
// episode stays in memory.
func (s *spool) writeBatch() {
	if _, err := s.spill.WriteAt(s.batch, s.spillW); err != nil {
		s.spillErr = fmt.Errorf("tap: the recorder's overflow file: %w", err)
		s.late = append(s.late, s.unbatch(s.batch)...)
		s.batch = s.batch[:0]
		return
	}
	s.spillW += int64(len(s.batch))
	s.batch = s.batch[:0]
}

// unbatch turns a batch back into chunks (owning their bytes). Its object
// records are the newest ones queued, so their chunks are objs' last.
func (s *spool) unbatch(b []byte) []chunk {
	var out []chunk
	objs := 0
	for p := b; len(p) >= recHeader; p = p[recHeader+int(binary.LittleEndian.Uint32(p[4:])):] {
		if chunkKind(p[0]) == kindObj {
			objs++
		}
	}
	pending := s.objs[len(s.objs)-objs:]
	for len(b) >= recHeader {
		n := int(binary.LittleEndian.Uint32(b[4:]))
		if chunkKind(b[0]) == kindObj {
			out = append(out, pending[0])
			pending = pending[1:]
		} else {
			var c chunk
			recordChunk(&c, b[:recHeader], bytes.Clone(b[recHeader:recHeader+n]))
			out = append(out, c)
		}
		b = b[recHeader+n:]
	}
	s.objs = s.objs[:len(s.objs)-objs]
	return out
}

// openSpill creates the overflow file and unlinks it at once: it lives as
// long as the tap holds it open and is never left behind.
func openSpill(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".tap-spool-*")
	if err != nil {
		return nil, fmt.Errorf("tap: the recorder's overflow file: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, nil
}

func (s *spool) wakeLocked() {
	if s.idle {
		s.idle = false
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// close stops taking records; what is queued stays to be drained.
func (s *spool) close() {
	s.mu.Lock()
	s.closed = true
	s.idle = false
	select {
	case s.wake <- struct{}{}:
	default:
	}
	s.mu.Unlock()
}

// release ends the spool's file.
func (s *spool) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spill != nil {
		_ = s.spill.Close()
		s.spill = nil
	}
}

// spoolReader takes records out of a spool, in order, on one goroutine at
// a time (the recorder's loop, then close).
type spoolReader struct {
	s   *spool
	buf []byte // what was read from the file
	// taken is the batch drain took from the spool; its buffer goes back
	// to the spool with the next one taken.
	taken []byte
	// linger is how long drain waits, once the spool is empty, before it
	// asks the copiers to wake it: a flood that goes on finds the
	// recorder's timer, not a wake-up per message (0: wake at once).
	linger time.Duration
	timer  *time.Timer
	// note is called once at the start of each overflow episode, with what
	// the record should say about it.
	note func(string)
	// noted and notedLate: the record says once that the recorder fell
	// behind (and once that it had to hold the backlog in memory).
	noted, notedLate bool
}

// errStopped says drain was asked to stop before the spool was empty.
var errStopped = fmt.Errorf("tap: recorder stopped")

// drain hands every queued record to handle, in order, until the spool
// is empty and closed, or stop says to stop (checked between records).
// With idle set, it is called whenever the spool is empty and drain waits
// for more; without, drain returns once the spool is empty.
func (sr *spoolReader) drain(stop func() bool, handle func(*chunk), idle func()) error {
	s := sr.s
	var c chunk
	// quiet: the spool was found empty and nothing came since.
	quiet := false
	for {
		s.mu.Lock()
		switch {
		case s.r < s.w:
			r, w := s.r, s.w
			s.mu.Unlock()
			size := uint64(len(s.ring))
			freed := r
			for r < w {
				if stop() {
					s.mu.Lock()
					s.r = r
					s.mu.Unlock()
					return errStopped
				}
				off := r % size
				h := s.ring[off : off+recHeader]
				n := int(binary.LittleEndian.Uint32(h[4:]))
				kind := chunkKind(h[0])
				if kind != kindPad {
					sr.record(&c, h, s.ring[off+recHeader:off+recHeader+uint64(n)])
					handle(&c)
					c = chunk{}
				}
				r += uint64(padded(recHeader + n))
				if r-freed >= 64<<10 {
					s.mu.Lock()
					s.r, freed = r, r
					s.mu.Unlock()
				}
			}
			s.mu.Lock()
			s.r = r
			s.mu.Unlock()
		case s.spillR < s.spillW:
			from, to, f := s.spillR, s.spillW, s.spill
			s.mu.Unlock()
			if !sr.noted {
				sr.noted = true
				sr.note("the recorder fell behind the traffic; what it had not recorded yet waited in a temporary file (nothing was lost; each frame's time is when it crossed the tap)")
			}
			for from < to {
				if stop() {
					s.mu.Lock()
					s.spillR = from
					s.mu.Unlock()
					return errStopped
				}
				got, err := sr.readSpill(f, from, to)
				if err != nil {
					// The file cannot be read back: say what is missing
					// rather than leave it out silently.
					sr.note(fmt.Sprintf("%d bytes the recorder had queued could not be read back and are missing from this record: %v", to-from, err))
					from = to
					break
				}
				for len(got) >= recHeader {
					n := int(binary.LittleEndian.Uint32(got[4:]))
					if len(got) < recHeader+n {
						break
					}
					sr.record(&c, got[:recHeader], got[recHeader:recHeader+n])
					handle(&c)
					c = chunk{}
					got = got[recHeader+n:]
					from += int64(recHeader + n)
				}
			}
			s.mu.Lock()
			s.spillR = from
			s.mu.Unlock()
		case len(s.batch) > 0:
			// Caught up with the file: the batch not yet written is
			// handed over whole, and the copiers fill the other buffer.
			b := s.batch
			s.batch, sr.taken = sr.taken[:0], b
			s.mu.Unlock()
			for len(b) >= recHeader {
				n := int(binary.LittleEndian.Uint32(b[4:]))
				if stop() {
					// Not handled yet: it goes back in front of what the
					// copiers added since.
					s.mu.Lock()
					s.batch = append(bytes.Clone(b), s.batch...)
					s.mu.Unlock()
					return errStopped
				}
				sr.record(&c, b[:recHeader], b[recHeader:recHeader+n])
				handle(&c)
				c = chunk{}
				b = b[recHeader+n:]
			}
		case len(s.late) > 0:
			late := s.late
			s.late = nil
			s.mu.Unlock()
			if !sr.notedLate {
				sr.notedLate = true
				sr.note("the recorder fell behind the traffic and no temporary file could hold the backlog (" + errString(s.spillErr) + "); it was held in memory (nothing was lost)")
			}
			for i := range late {
				if stop() {
					s.mu.Lock()
					s.late = append(late[i:], s.late...)
					s.mu.Unlock()
					return errStopped
				}
				handle(&late[i])
			}
		default:
			// Empty: an overflow episode ends here.
			if s.spilling {
				s.spilling = false
				if s.spill != nil {
					_ = s.spill.Truncate(0)
				}
				s.spillR, s.spillW = 0, 0
			}
			if s.closed || idle == nil {
				s.mu.Unlock()
				return nil
			}
			if sr.linger > 0 && !quiet {
				// Found empty after work: wait a little without asking to
				// be woken, and look again.
				quiet = true
				s.mu.Unlock()
				idle()
				sr.pause(sr.linger)
				continue
			}
			s.idle = true
			s.mu.Unlock()
			if !quiet {
				idle()
			}
			<-s.wake
			continue
		}
		quiet = false
	}
}

// pause waits d, or less if the spool closes.
func (sr *spoolReader) pause(d time.Duration) {
	if sr.timer == nil {
		sr.timer = time.NewTimer(d)
	} else {
		sr.timer.Reset(d)
	}
	select {
	case <-sr.timer.C:
	case <-sr.s.wake: // closed
		sr.timer.Stop()
	}
}

// readSpill reads whole records from the file, from..to; the slice is
// valid until the next call.
func (sr *spoolReader) readSpill(f *os.File, from, to int64) ([]byte, error) {
	n := min(to-from, spillRead)
	if cap(sr.buf) < int(n) {
		sr.buf = make([]byte, spillRead)
	}
	b := sr.buf[:n]
	if _, err := f.ReadAt(b, from); err != nil && err != io.EOF {
		return nil, err
	}
	// A record longer than what was read (up to 64 KiB of data and its
	// header) gets a buffer of its own size.
	if len(b) >= recHeader {
		if need := int64(recHeader + int(binary.LittleEndian.Uint32(b[4:]))); need > n {
			big := make([]byte, min(need, to-from))
			if _, err := f.ReadAt(big, from); err != nil && err != io.EOF {
				return nil, err
			}
			return big, nil
		}
	}
	return b, nil
}

// record fills c from a record's header and bytes (which stay the
// spool's: handle must copy what it keeps).
func (sr *spoolReader) record(c *chunk, h, data []byte) {
	if chunkKind(h[0]) == kindObj {
		s := sr.s
		s.mu.Lock()
		*c = s.objs[0]
		s.objs[0] = chunk{}
		s.objs = s.objs[1:]
		s.mu.Unlock()
		return
	}
	recordChunk(c, h, data)
}

// recordChunk fills c from a data record's header and bytes.
func recordChunk(c *chunk, h, data []byte) {
	at := time.Unix(0, int64(binary.LittleEndian.Uint64(h[8:])))
	*c = chunk{kind: chunkKind(h[0]), dir: mcp.Direction(h[1]), data: data, at: at}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}
