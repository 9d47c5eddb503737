package panes

import (
	"fmt"
	"strconv"
)

// The log keeps the server's last stderrKeepLines stderr lines
// (stderrKeepBytes at most); older ones leave it, and one row in their
// place says how many lines and bytes went. A server writing hundreds of
// megabytes of stderr held them all, a row each (607 MB for 400 MB).
// Lines are dropped a quarter of the ring at a time, so that the
// entries are compacted once per many lines, not once per line.
const (
	stderrKeepLines = 20000
	stderrKeepBytes = 4 << 20
)

// droppedText is a dropped-lines row: "… 123,456 earlier lines dropped
// (12.3 MB)".
func droppedText(lines int, bytes int64) string {
	noun := "earlier lines"
	if lines == 1 {
		noun = "earlier line"
	}
	return fmt.Sprintf("… %s %s dropped (%s)", thousands(lines), noun, mbText(bytes))
}

// thousands is n with its thousands separated by commas: 123,456.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func mbText(n int64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%d B", n)
}

// pushDropped logs that lines of stderr (bytes bytes) were not kept,
// adding them to the row just before when it says the same.
func (l *Log) pushDropped(e logEntry, lines int, bytes int64) {
	if n := len(l.entries); n > 0 {
		if last := &l.entries[n-1]; last.kind == entryStderr && l.data(last).dropped > 0 {
			d := l.data(last)
			d.dropped += lines
			d.droppedBytes += bytes
			l.forgetRow(int32(n - 1))
			return
		}
	}
	e.kind = entryStderr
	l.pushData(e, entryData{dropped: lines, droppedBytes: bytes})
}

// dropOldStderr drops the oldest stderr lines until the log holds
// stderrKeepLines of them and stderrKeepBytes at most: each run of
// dropped lines becomes one row that counts them (merged with a count
// row just before it), and the entries and their events are compacted,
// with every index into them moved along.
func (l *Log) dropOldStderr() {
	keep := int32(-1)
	if cur := l.cursor(); cur >= 0 {
		keep = l.shown[cur]
	}
	moved := make([]int32, len(l.entries)) // old entry -> new, or the row it went into
	entries, others := l.entries[:0], l.others[:0]
	for i := range l.entries {
		e := l.entries[i]
		d := noData
		if e.kind != entryFrame {
			d = l.others[e.ref]
		}
		drop := e.kind == entryStderr && d.dropped == 0 &&
			(l.stderrLines > stderrKeepLines || l.stderrBytes > stderrKeepBytes)
		if e.kind == entryStderr && d.dropped > 0 {
			// A count row (the server's flood outran the rate, or an
			// earlier compaction) joins one just before it.
			if n := len(entries); n > 0 && entries[n-1].kind == entryStderr && others[entries[n-1].ref].dropped > 0 {
				prev := &others[entries[n-1].ref]
				prev.dropped += d.dropped
				prev.droppedBytes += d.droppedBytes
				moved[i] = int32(n - 1)
				continue
			}
		}
		if drop {
			l.stderrLines--
			l.stderrBytes -= int64(len(d.text) + 1)
			if n := len(entries); n > 0 && entries[n-1].kind == entryStderr && others[entries[n-1].ref].dropped > 0 {
				prev := &others[entries[n-1].ref]
				prev.dropped++
				prev.droppedBytes += int64(len(d.text) + 1)
				moved[i] = int32(n - 1)
				continue
			}
			d = entryData{dropped: 1, droppedBytes: int64(len(d.text) + 1)}
		}
		if e.kind != entryFrame {
			e.ref = int32(len(others))
			others = append(others, d)
		}
		moved[i] = int32(len(entries))
		entries = append(entries, e)
	}
	clear(l.others[len(others):]) // let the dropped lines be collected
	l.entries, l.others = entries, others
	for seq, ri := range l.requests {
		l.requests[seq] = moved[ri]
	}
	for id, ri := range l.runs {
		l.runs[id] = moved[ri]
	}
	l.clearRows()
	if keep >= 0 {
		keep = moved[keep]
	}
	l.rebuildAt(keep)
}
