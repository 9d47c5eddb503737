package record

import (
	"context"
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
}

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
// newline).
func (fl *Follower) Next(ctx context.Context, follow bool) (Entry, error) {
	for {
		e, err := fl.d.Next()
		if !errors.Is(err, io.EOF) {
			return e, err
		}
		if !follow {
			return fl.d.Finish()
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

// Close closes the file.
func (fl *Follower) Close() error { return fl.f.Close() }
