package tap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// pollInterval is how often a viewer looks at the file when no wake-up
// came (wake-ups a busy hub dropped, or a hub that could not be reached).
const pollInterval = 250 * time.Millisecond

// Source is the viewer's side of a tap: a read-only session.Source over
// a tap's session file, live or finished. It delivers the conversation
// from its first frame (a viewer attaching late misses nothing), rebuilds
// the handshake and the lists the client was given, and runs the doctor on
// the real traffic with the profile of the client that spoke.
type Source struct {
	session.ReadOnly
	file, sock string
	transport  string
	// running says whether the tap that writes file still runs.
	running func() bool
	// cutReason says why the capture stops short ("" while whole);
	// cutSaid, that the stream has said so.
	cutReason func() string
	cutSaid   bool
	// ended is set once the record said how the conversation ended.
	endSeen bool
	// clientSignal is the signal the client sent the tap, from its row.
	clientSignal string
	// after, when set, is the tap this source was made to watch again
	// (NewNextSource).
	after *Listed

	q      *mcp.EventStream
	start  sync.Once
	closed sync.Once
	done   chan struct{}
	ended  chan struct{}

	mu     sync.Mutex
	client string // the client's clientInfo, once seen
	// sessions counts the client sessions seen (one tap --listen serves
	// one client after another); client is the latest's.
	sessions int
	prof     doctor.Profile
	// numbered holds the client and profile of each client session of a
	// capture that numbers them (Frame.ClientSession); cur is the
	// session of the latest frame, which the title names.
	numbered map[int]sessionClient
	cur      int

	// Profile, when set before Start, is the doctor's client profile
	// instead of the one the client's clientInfo picks.
	Profile doctor.Profile
}

var _ session.Source = (*Source)(nil)

// NewSource watches one listed tap (see List).
func NewSource(l Listed) *Source {
	s := &Source{q: mcp.NewEventStream(), done: make(chan struct{}), ended: make(chan struct{})}
	s.watch(l)
	return s
}

// NewNextSource watches l again (the viewer's reconnect): l itself while
// it runs, else its server's next tap (Successor), looked for when the
// source starts. With neither, the stream says so and ends, rather than
// read l's finished record a second time.
func NewNextSource(l Listed) *Source {
	s := NewSource(l)
	s.after = &l
	return s
}

// watch points the source at one listed tap.
func (s *Source) watch(l Listed) {
	s.Why = "this is " + l.Label() + "'s conversation with its real client, watched through a tap: nothing can be sent into it"
	if !l.Live {
		s.Why = "this is a recorded tap (" + filepath.Base(l.File) + "): nothing can be sent"
	}
	s.file, s.transport, s.sock = l.File, l.Transport, ""
	if l.Live {
		s.sock = l.Socket
	}
	s.running = l.Running
	s.cutReason = l.CutReason
	if s.transport == "" {
		s.transport = "stdio"
	}
}

// sessionClient is a client session's client, as its handshake named it.
type sessionClient struct {
	client string
	prof   doctor.Profile
}

// Events is the ordered stream of the conversation.
func (s *Source) Events() <-chan mcp.Event { return s.q.Channel() }

// Start opens the session file and begins delivering it.
func (s *Source) Start(ctx context.Context) error {
	var err error
	s.start.Do(func() {
		if s.after != nil && !s.running() {
			next, ok := Successor(*s.after)
			if !ok {
				s.q.Push(mcp.StateEvent{Time: time.Now(), State: mcp.StateClosed,
					Detail: "the tap of " + s.after.Label() + " has ended and no newer tap of that server runs; its client starts one when it starts the server again"})
				s.q.Close()
				close(s.ended)
				return
			}
			s.watch(next)
			// Stamped when that tap started, so its record's times follow.
			s.q.Push(mcp.StateEvent{Time: next.Started, State: mcp.StateConnecting,
				Detail: fmt.Sprintf("following the server's next tap (pid %d, started %s)", next.PID, next.Started.Local().Format(time.TimeOnly))})
		}
		var f *os.File
		f, err = os.Open(s.file)
		if err != nil {
			err = fmt.Errorf("tap: %w", err)
			s.q.Push(mcp.StateEvent{Time: time.Now(), State: mcp.StateFailed, Detail: err.Error()})
			s.q.Close()
			close(s.ended)
			return
		}
		go s.follow(f)
	})
	return err
}

// SetHandler does nothing: the real client answers the server.
func (s *Source) SetHandler(mcp.Handler) {}

// TransportName says what is watched and, once the client has said hello,
// which client it is and which profile the doctor applies: the client
// session of the latest frame, in a capture that numbers them.
func (s *Source) TransportName() string {
	s.mu.Lock()
	n := s.cur
	s.mu.Unlock()
	return s.TransportNameOf(n)
}

// TransportNameOf is TransportName for client session n of a capture
// that numbers them (the one the viewer looks at); for a session it has
// not seen, or 0, it is the latest's.
func (s *Source) TransportNameOf(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.numbered[n]; !ok {
		n = s.cur
	}
	name := s.transport + " tap"
	client, prof := s.client, s.prof
	if sc, ok := s.numbered[n]; ok {
		client, prof = sc.client, sc.prof
	}
	if client != "" {
		name += " · " + client + " (" + string(prof) + " profile)"
	}
	switch {
	case len(s.numbered) > 1:
		name += fmt.Sprintf(" · client session %d of %d", n, len(s.numbered))
	case s.numbered == nil && s.sessions > 1:
		name += fmt.Sprintf(" · client session %d", s.sessions)
	}
	return name
}

// Close stops watching (the tap goes on) and waits for the stream's end.
func (s *Source) Close() error {
	s.closed.Do(func() { close(s.done) })
	s.start.Do(func() { s.q.Close(); close(s.ended) })
	<-s.ended
	return nil
}

// growthGrace is how long a file whose tap is not known to run is
// followed after it last grew: a tap that holds no live file (an older
// mcpscope, a file system without locks) still writes while it runs.
const growthGrace = 2 * time.Second

// follow delivers the file as it grows until the tap ends: while its
// process runs (its live file is held) or the file keeps growing, with or
// without a hub socket. The hub's wake-ups only make it sooner.
func (s *Source) follow(f *os.File) {
	defer close(s.ended)
	defer s.q.Close()
	defer func() { _ = f.Close() }()
	var wake <-chan struct{}
	if s.sock != "" {
		if _, w, hang, err := dialHub(s.sock); err == nil {
			defer hang()
			wake = w
		}
		// A hub that does not answer: the tap has just ended, or cannot
		// be reached; the file still holds everything, and is polled.
	}
	grew := time.Now()
	if fi, err := f.Stat(); err == nil {
		grew = fi.ModTime()
	}
	var size int64 = -1
	going := func() bool {
		if fi, err := f.Stat(); err == nil {
			if fi.Size() != size {
				if size >= 0 {
					grew = time.Now()
				}
				size = fi.Size()
			}
		}
		if s.running() {
			return true
		}
		// Not running: a record that has said how it ended is complete;
		// one that has not is followed while it still grows.
		return !s.endSeen && time.Since(grew) < growthGrace
	}
	r := newReader(f)
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		live := going()
		if err := s.drain(r); err != nil {
			s.q.Push(mcp.StateEvent{Time: time.Now(), State: mcp.StateFailed, Detail: "reading " + s.file + ": " + err.Error()})
			return
		}
		if !live {
			s.finish(r)
			return
		}
		if !s.cutSaid {
			if why := s.cutReason(); why != "" {
				// The tap goes on passing the conversation; the viewer
				// is told why nothing more arrives.
				s.cutSaid = true
				s.q.Push(mcp.TransportEvent{Time: time.Now(), Kind: "tap",
					Summary: "the capture stops here: the tap could not write the rest (it goes on passing the conversation, unrecorded)",
					Err:     errors.New(why)})
			}
		}
		select {
		case _, ok := <-wake:
			if !ok {
				// The hub has closed: the tap is ending, and what it
				// writes last comes before it lets go of its live file.
				wake = nil
			}
		case <-tick.C:
		case <-s.done:
			return
		}
	}
}

func (s *Source) finish(r *reader) {
	e, err := r.dec.Finish()
	if err == nil {
		s.deliver(r, &e)
	}
	why := s.cutReason()
	if cut := (*record.CutError)(nil); errors.As(err, &cut) && why == "" {
		why = cut.Error()
	}
	if why != "" {
		// Whatever the record says last, it is not all there was.
		at := time.Now()
		if fi, err := os.Stat(s.file); err == nil {
			at = fi.ModTime()
		}
		s.q.Push(mcp.StateEvent{Time: at, State: mcp.StateFailed,
			Detail: "the capture is incomplete, what it holds is shown: " + why})
		return
	}
	if !s.endSeen {
		// Killed, or its machine stopped: the record ends mid-conversation,
		// when the file was last written.
		at := time.Now()
		if fi, err := os.Stat(s.file); err == nil {
			at = fi.ModTime()
		}
		if s.clientSignal != "" {
			// The client ended it with a signal, and killed the tap before
			// the server's end could be recorded (Copilot CLI sends SIGKILL
			// right after SIGTERM).
			s.q.Push(mcp.StateEvent{Time: at, State: mcp.StateClosed,
				Detail: "its client ended the conversation (" + s.clientSignal + "), then stopped the tap before it recorded how the server ended"})
			return
		}
		s.q.Push(mcp.StateEvent{Time: at, State: mcp.StateFailed,
			Detail: "the tap is no longer running and its record stops here without saying how the conversation ended"})
	}
}

// drain delivers every complete entry written so far.
func (s *Source) drain(r *reader) error {
	for {
		e, err := r.dec.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		s.deliver(r, &e)
	}
}

func (s *Source) deliver(r *reader, e *record.Entry) {
	if e.Type == "session" {
		// The conversation's clock starts when the tap did.
		what := e.Target
		switch {
		case len(e.Command) > 0:
			what = strings.Join(e.Command, " ")
		case e.URL != "":
			what = e.Target + " → " + e.URL
		}
		s.q.Push(mcp.StateEvent{Time: e.Time, State: mcp.StateConnecting, Detail: "tap started: " + what})
		return
	}
	ev := r.rb.Event(e)
	if ev == nil {
		return
	}
	if st, ok := ev.(mcp.StateEvent); ok && (st.State == mcp.StateClosed || st.State == mcp.StateFailed) {
		s.endSeen = true
	}
	if te, ok := ev.(mcp.TransportEvent); ok && te.Kind == record.TransportClientSignal && s.clientSignal == "" {
		s.clientSignal = clientSignalName(te.Summary)
	}
	if _, ok := ev.(mcp.HandshakeEvent); ok {
		r.handshook = true
	}
	n := 0 // the frame's client session, in a capture that numbers them
	if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.ClientSession != 0 {
		// Each client session has its own doctor and client, whichever
		// order their frames come in.
		n = fe.Frame.ClientSession
		l, seen := r.linters[n]
		if !seen && len(r.linters) > 0 {
			s.q.Push(mcp.StateEvent{Time: fe.Frame.Time, State: mcp.StateConnecting,
				Detail: fmt.Sprintf("another client session begins (client session %d, %s)", n, fe.Frame.Label())})
		}
		if r.linters == nil {
			r.linters = map[int]*doctor.Linter{}
		}
		r.linter = l
		s.mu.Lock()
		s.cur = n
		if s.numbered == nil {
			s.numbered = map[int]sessionClient{}
		}
		if _, ok := s.numbered[n]; !ok {
			s.numbered[n] = sessionClient{}
		}
		s.mu.Unlock()
	} else if ok && r.handshook && opensSession(fe.Frame) {
		// Another client session through the same tap: a conversation of
		// its own, with its client named and its own doctor.
		r.linter, r.handshook = nil, false
		s.q.Push(mcp.StateEvent{Time: fe.Frame.Time, State: mcp.StateConnecting, Detail: "another client session begins (" + fe.Frame.Method + ")"})
	}
	if fe, ok := ev.(mcp.FrameEvent); ok && r.linter == nil {
		// The doctor's profile is the client's: chosen from its first
		// words (initialize or server/discover), generic otherwise.
		prof := doctor.ProfileGeneric
		if f := fe.Frame; f.Dir == mcp.Outbound && (f.Method == mcp.MethodInitialize || f.Method == mcp.MethodServerDiscover) {
			var info mcp.Implementation
			info, prof = profileForRequest(f)
			if s.Profile != "" {
				prof = s.Profile // the viewer's choice, named with the client
			}
			client := info.Name
			if info.Version != "" {
				client += " " + info.Version
			}
			s.mu.Lock()
			if n != 0 {
				s.numbered[n] = sessionClient{client: client, prof: prof}
			} else {
				s.sessions++
				s.client, s.prof = client, prof
			}
			s.mu.Unlock()
		}
		if s.Profile != "" {
			prof = s.Profile // also when the record has no handshake
		}
		r.linter = doctor.New(doctor.Options{Profile: prof})
		if n != 0 {
			r.linters[n] = r.linter
		}
	}
	group := []mcp.Event{ev}
	if r.linter != nil {
		for _, d := range r.linter.Observe(ev) {
			group = append(group, mcp.DiagnosticEvent{Time: ev.At(), Diagnostic: d})
		}
	}
	if fe, ok := ev.(mcp.FrameEvent); ok && fe.Frame.Dir == mcp.Inbound && fe.Frame.Kind == mcp.KindNotification && fe.Frame.Method == mcp.NotifyMessage {
		group = append(group, session.LogMessageEvent{Time: fe.Frame.Time, Params: params(fe.Frame.Raw), Frame: fe.Frame})
	}
	s.q.Push(group...)
}

// reader is one pass over a session file.
type reader struct {
	dec    *record.Decoder
	rb     *record.Rebuilder
	linter *doctor.Linter
	// handshook says the current client session's handshake completed.
	handshook bool
	// linters are the doctors of the client sessions of a capture that
	// numbers them; linter is the one of the latest frame's session.
	linters map[int]*doctor.Linter
}

// opensSession reports a client's handshake request: after a completed
// handshake, the start of another client session (a hot reload's own
// handshake, sent by the tap, is not).
func opensSession(f *mcp.Frame) bool {
	return f.Dir == mcp.Outbound && f.Kind == mcp.KindRequest && !f.ByTap &&
		(f.Method == mcp.MethodInitialize || f.Method == mcp.MethodServerDiscover)
}

func newReader(f io.Reader) *reader {
	rb := record.NewRebuilder()
	rb.SkipDiagnostics = true // the doctor runs here, on today's rules
	return &reader{dec: record.NewDecoder(f), rb: rb}
}

// clientSignalName is the signal a client-signal row names ("the tap got
// SIGTERM ...").
func clientSignalName(summary string) string {
	for _, w := range strings.Fields(summary) {
		if strings.HasPrefix(w, "SIG") {
			return w
		}
	}
	return "a signal"
}
