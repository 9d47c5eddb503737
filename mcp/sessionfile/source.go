// Package sessionfile makes a session file a read-only session.Source, so
// that `mcpscope open` shows a recording in the same panes as a live
// session: the frames at their recorded times, the handshake and lists
// rebuilt from the frames, and the protocol doctor run again with today's
// rules (the recorded diagnostics are left out). A file that is still
// being written (a running --record or tap) is followed as it grows.
//
// The file is read as a stream: the first events reach the viewer while
// the rest of a large file is still being read.
package sessionfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Options configure a Source.
type Options struct {
	// Analyzer, when set, re-runs the doctor over the events (a fresh one
	// per Source); the recorded diagnostics are then left out.
	Analyzer mcp.Analyzer
	// Follow keeps reading as the file grows, until Close.
	Follow bool
	// Poll is how often the end of a followed file is checked (250 ms
	// when zero).
	Poll time.Duration
	// Why is what every send key answers.
	Why string
}

// Source is a session file as a read-only session.Source.
type Source struct {
	session.ReadOnly
	opts      Options
	fl        *record.Follower
	header    record.Entry
	transport string
	ch        chan mcp.Event
	start     chan struct{}
	ctx       context.Context
	cancel    context.CancelFunc
	started   sync.Once
	closed    sync.Once
	done      chan struct{}
	mu        sync.Mutex
	err       error
}

var (
	_ session.Source    = (*Source)(nil)
	_ session.Recording = (*Source)(nil)
)

// Recorded says the source is a recording (session.Recording).
func (s *Source) Recorded() bool { return true }

// Open reads path's header (a file that is not a session file, or is of a
// newer format, is an error here) and prepares the stream; nothing more is
// read until Start.
func Open(path string, o Options) (*Source, error) {
	fl, err := record.OpenFollower(path, o.Poll)
	if err != nil {
		return nil, err
	}
	h, err := fl.Next(context.Background(), false)
	if err != nil {
		_ = fl.Close()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty, not a session file yet", path)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Source{ReadOnly: session.ReadOnly{Why: o.Why}, opts: o, fl: fl, header: h,
		transport: peekTransport(path), ch: make(chan mcp.Event, 1024), start: make(chan struct{}),
		ctx: ctx, cancel: cancel, done: make(chan struct{})}
	go s.run()
	return s, nil
}

// peekTransport finds the transport of the first frame in the first lines
// (the header does not say it).
func peekTransport(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }()
	d := record.NewDecoder(io.LimitReader(f, 1<<20))
	for i := 0; i < 200; i++ {
		e, err := d.Next()
		if err != nil {
			return ""
		}
		if e.Type == "frame" && e.Transport != "" {
			return e.Transport
		}
	}
	return ""
}

// Header is the file's session line.
func (s *Source) Header() record.Entry { return s.header }

func (s *Source) run() {
	defer close(s.done)
	defer close(s.ch)
	defer func() { _ = s.fl.Close() }()
	select {
	case <-s.start:
	case <-s.ctx.Done():
		return
	}
	b := record.NewRebuilder()
	b.SkipDiagnostics = s.opts.Analyzer != nil
	var evs []mcp.Event
	var last time.Time // the last entry's
	for {
		e, err := s.fl.Next(s.ctx, s.opts.Follow)
		if cut := (*record.CutError)(nil); errors.As(err, &cut) {
			// The complete lines are shown; the reader is told why the
			// rest is missing. A followed file may still grow.
			// Dated with the last entry: the log's times follow the file.
			at := last
			if at.IsZero() {
				at = time.Now()
			}
			if !s.send(mcp.StateEvent{Time: at, State: mcp.StateFailed, Detail: cut.Error()}) {
				return
			}
			if s.opts.Follow {
				continue
			}
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) && s.ctx.Err() == nil {
				s.mu.Lock()
				s.err = err
				s.mu.Unlock()
				// The reader sees why the rest is missing.
				s.send(mcp.StateEvent{Time: time.Now(), State: mcp.StateFailed, Detail: "the session file could not be read further: " + err.Error()})
			}
			return
		}
		if !e.Time.IsZero() {
			last = e.Time
		}
		evs = b.Events(evs[:0], &e)
		for _, ev := range evs {
			if !s.send(ev) {
				return
			}
			if s.opts.Analyzer != nil {
				for _, d := range s.opts.Analyzer.Observe(ev) {
					if !s.send(mcp.DiagnosticEvent{Time: ev.At(), Diagnostic: d}) {
						return
					}
				}
			}
		}
	}
}

func (s *Source) send(ev mcp.Event) bool {
	select {
	case s.ch <- ev:
		return true
	case <-s.ctx.Done():
		return false
	}
}

// Events delivers the file's events once Start was called; it closes at
// the end of the file (or, when following, at Close).
func (s *Source) Events() <-chan mcp.Event { return s.ch }

// Start begins reading.
func (s *Source) Start(context.Context) error {
	s.started.Do(func() { close(s.start) })
	return nil
}

// SetHandler does nothing: a recorded server asks nothing.
func (s *Source) SetHandler(mcp.Handler) {}

// TransportName is the recorded transport's.
func (s *Source) TransportName() string { return s.transport }

// Err is the read error that ended the stream early, if any.
func (s *Source) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops reading and waits for the reader; the stream closes.
func (s *Source) Close() error {
	s.closed.Do(s.cancel)
	<-s.done
	return nil
}
