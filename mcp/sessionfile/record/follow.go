package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Follower reads a session file entry by entry and, at its end, waits for
// the writer to add more (a running `--record` or tap): `tail -f` for
// session files. A half-written last line is held back until its newline
// arrives. It is the one file follower: taps, `mcpscope open` and anything
// else that watches a growing session file use it.
type Follower struct {
	f    *os.File
	d    *Decoder
	poll time.Duration
	// Wake, when set, is waited on (as well as the poll interval) at the
	// end of the file: a writer that can say "there is more" makes the
	// follower answer at once instead of at the next poll.
	Wake <-chan struct{}
	// stalled is since when the file has ended in the same half line
	// (zero: it has not); toldCut says Next has reported it.
	stalled     time.Time
	stalledSize int
	toldCut     bool
}

// CutAfter is how long a followed file may end in the same half line
// before Next says it was cut: every writer of session files finishes a
// line within a flush (200 ms for --record, at once for a tap), so a
// half line that stays is one its writer never finished (a full disk, a
// kill).
const CutAfter = 2 * time.Second

// OpenFollower opens path for following; poll is how often the end of the
// file is checked for growth (250 ms when zero). The header is read at
// once, so a file that is not a session file is an error here.
func OpenFollower(path string, poll time.Duration) (*Follower, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("session file: %w", err)
	}
	if poll <= 0 {
		poll = 250 * time.Millisecond
	}
	fl := &Follower{f: f, d: NewDecoder(f), poll: poll}
	return fl, nil
}

// Header is the session line once the first entry has been read.
func (fl *Follower) Header() *Entry { return fl.d.Header() }

// Next returns the next complete entry. With follow set it waits at the
// end of the file until the writer adds an entry or ctx ends; without, it
// returns io.EOF at the end (after a last line that lacks only its
// newline), or a *CutError for a last line its writer never finished.
// Following, a half line that stays CutAfter is reported once as a
// *CutError; Next may be called again, and goes on following.
func (fl *Follower) Next(ctx context.Context, follow bool) (Entry, error) {
	for {
		e, err := fl.d.Next()
		if !errors.Is(err, io.EOF) {
			fl.stalled = time.Time{}
			return e, err
		}
		if !follow {
			return fl.d.Finish()
		}
		if cut := fl.stalledCut(); cut != nil {
			return Entry{}, cut
		}
		t := time.NewTimer(fl.poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return Entry{}, ctx.Err()
		case <-fl.Wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// stalledCut is the *CutError to report when the file has ended in the
// same half line for CutAfter, once.
func (fl *Follower) stalledCut() *CutError {
	n := len(fl.d.partial)
	if n == 0 || fl.d.header == nil || fl.toldCut {
		fl.stalled = time.Time{}
		return nil
	}
	if fl.stalled.IsZero() || n != fl.stalledSize {
		fl.stalled, fl.stalledSize = time.Now(), n
		return nil
	}
	if time.Since(fl.stalled) < CutAfter || json.Valid(fl.d.partial) {
		return nil
	}
	fl.toldCut = true
	return &CutError{Lines: fl.d.line, Bytes: n}
}

// Close closes the file.
func (fl *Follower) Close() error { return fl.f.Close() }
