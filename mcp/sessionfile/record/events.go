package record

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
)

// Decoder reads a session file one entry at a time, so that a reader of a
// large file (or of one still being written) holds only what it keeps.
type Decoder struct {
	r      *bufio.Reader
	line   int
	header *Entry
	// partial holds the start of a line whose newline has not been
	// written yet (a file still growing).
	partial []byte
}

// ErrNewerFormat is returned for a file written by a later, incompatible
// version of mcpscope (its format number is higher than FormatVersion).
var ErrNewerFormat = errors.New("the session file was written in a newer format")

// NewDecoder reads entries from r.
func NewDecoder(r io.Reader) *Decoder { return &Decoder{r: bufio.NewReaderSize(r, 256<<10)} }

// Header is the session line, once the first entry has been read.
func (d *Decoder) Header() *Entry { return d.header }

// Next returns the next complete entry. At the end of the input it returns
// io.EOF; a last line without its newline is kept back (the writer may be
// in the middle of it) and returned once it is complete, or by Finish.
//
// The first entry must be the session header, and its format must be one
// this version reads (1 to FormatVersion). Unknown entry types and fields
// are not errors: they are what later versions add (docs/session-files.md).
func (d *Decoder) Next() (Entry, error) {
	for {
		chunk, err := d.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			d.partial = append(d.partial, chunk...)
			continue
		}
		if err != nil {
			if len(chunk) > 0 {
				d.partial = append(d.partial, chunk...)
			}
			return Entry{}, err
		}
		line := chunk
		if len(d.partial) > 0 {
			d.partial = append(d.partial, chunk...)
			line = d.partial
		}
		e, perr := d.parse(line)
		d.partial = d.partial[:0]
		if perr != nil {
			return Entry{}, perr
		}
		if e == nil { // a blank line
			continue
		}
		return *e, nil
	}
}

// CutError says that a session file ends in the middle of a line: its
// writer stopped there (a full disk, a killed process). The lines before
// it are whole and were read; readers keep them and say the file was cut.
type CutError struct {
	// Lines is how many complete lines came before the cut one.
	Lines int
	// Bytes is the length of the cut line.
	Bytes int
	// Err is why the cut line does not parse.
	Err error
}

func (e *CutError) Error() string {
	return fmt.Sprintf("the file ends mid-line after %d lines (%d bytes of a line that was never finished); showing what parses",
		e.Lines, e.Bytes)
}

func (e *CutError) Unwrap() error { return e.Err }

// Finish parses a last line that never got its newline (a file whose
// writer was killed); io.EOF when there is none. A last line that does
// not parse is one its writer never finished: Finish returns a *CutError
// for it (after a complete header; a file cut within its header is not a
// session file yet).
func (d *Decoder) Finish() (Entry, error) {
	if len(d.partial) == 0 {
		return Entry{}, io.EOF
	}
	line := d.partial
	d.partial = nil
	complete := d.line
	e, err := d.parse(line)
	if err != nil {
		if d.header != nil {
			return Entry{}, &CutError{Lines: complete, Bytes: len(line), Err: err}
		}
		return Entry{}, err
	}
	if e == nil {
		return Entry{}, io.EOF
	}
	return *e, nil
}

func (d *Decoder) parse(line []byte) (*Entry, error) {
	d.line++
	if len(trimSpace(line)) == 0 {
		return nil, nil
	}
	var e Entry
	if err := json.Unmarshal(line, &e); err != nil {
		if d.header == nil {
			return nil, fmt.Errorf("not an mcpscope session file: the first line is not JSON (%w)", err)
		}
		return nil, fmt.Errorf("session file line %d: %w", d.line, err)
	}
	if d.header == nil {
		if e.Type != "session" {
			return nil, errors.New("not an mcpscope session file: the first line is not a session header")
		}
		if e.Format > FormatVersion {
			return nil, fmt.Errorf("%w (format %d; this mcpscope %s reads formats 1 to %d): use a newer mcpscope",
				ErrNewerFormat, e.Format, mcp.ClientVersion, FormatVersion)
		}
		h := e
		d.header = &h
	}
	return &e, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// Rebuilder turns entries back into the events they were written from, so
// that a session file drives everything a live session drives. What a
// line does not hold is recovered from the frames: a frame's method of
// reply from its request, a list's items from its response pages, the
// handshake's client side and full result from its frames.
type Rebuilder struct {
	// requests: seq -> method of every request frame seen, as an index in
	// methods (a file of 250,000 tools/call requests keeps one string,
	// not 250,000, and 16-byte map slots).
	requests map[int64]uint32
	methods  []string
	methodID map[string]uint32
	// pages: list method -> the items of the pages answered since that
	// list's last list entry.
	pages map[string][]json.RawMessage
	// handshake frames: the last initialize/server/discover request and
	// its response.
	hsRequest, hsResult json.RawMessage
	// stderr: the last stderr lines since the last exit, for an exit
	// entry that does not carry them.
	stderr []string
	// SkipDiagnostics leaves out the recorded diagnostics (the caller
	// re-runs today's doctor over the rebuilt events).
	SkipDiagnostics bool
	// runs numbers the keep-alive runs rebuilt.
	runs uint64
	// listings: list method -> the listing under way, read from the
	// frames (Events): begun by a request without a cursor, ended by a
	// page without nextCursor.
	listings map[string]*listing
	// derived holds what the last frame completed, for Events.
	derived []mcp.Event
}

// listing is a list read page by page from the frames.
type listing struct {
	items []json.RawMessage
	pages int
}

// NewRebuilder starts with no history.
func NewRebuilder() *Rebuilder {
	return &Rebuilder{requests: map[int64]uint32{}, methodID: map[string]uint32{}, pages: map[string][]json.RawMessage{}}
}

// Events appends to dst the events of one entry as the frames tell them:
// the entry's own, and after a frame what it completes (a ListEvent when
// it is a list's last page, whatever wrote the file: `call` writes no
// list lines, and a re-list after list_changed has none either). A list
// line adds only a failed list (what its frames cannot say); its items
// came from the frames already. This is how every reader of a whole file
// sees it (ReadEvents).
func (b *Rebuilder) Events(dst []mcp.Event, e *Entry) []mcp.Event {
	if e.Type == "list" {
		if e.Error == "" {
			delete(b.pages, e.Method)
			return dst
		}
		return append(dst, b.Event(e))
	}
	ev := b.Event(e)
	if ev == nil {
		return dst
	}
	dst = append(dst, ev)
	dst = append(dst, b.derived...)
	b.derived = b.derived[:0]
	return dst
}

// Event rebuilds one entry; nil for the session header and for entry types
// this version does not know. A list line's items are the pages answered
// since that list's last line. (Events is the same with the lists read
// from the frames alone.)
func (b *Rebuilder) Event(e *Entry) mcp.Event {
	switch e.Type {
	case "frame":
		return mcp.FrameEvent{Frame: b.frame(e)}
	case "stderr":
		b.stderr = append(b.stderr, e.Line)
		if len(b.stderr) > stderrTail {
			b.stderr = b.stderr[len(b.stderr)-stderrTail:]
		}
		return mcp.StderrEvent{Time: e.Time, Line: e.Line, Dropped: e.Dropped, DroppedBytes: e.DroppedBytes}
	case "state":
		return mcp.StateEvent{Time: e.Time, State: parseState(e.State), Detail: e.Detail}
	case "handshake":
		return mcp.HandshakeEvent{Time: e.Time, Handshake: b.handshake(e), ClientSession: e.ClientSession}
	case "list":
		items := b.pages[e.Method]
		delete(b.pages, e.Method)
		ev := mcp.ListEvent{Time: e.Time, Method: e.Method, Items: items, Pages: e.Pages}
		if e.Error != "" {
			ev.Err = errors.New(e.Error)
		}
		return ev
	case "exit":
		x := &mcp.ExitError{Code: -1, Signal: e.Signal, Forced: e.Forced, LastStderr: e.LastStderr, ClientSignal: e.ClientSignal,
			Hurried: e.Hurried, Expected: e.Expected, StoppedFor: e.StoppedFor, ErrorLine: e.ErrorLine}
		if len(x.LastStderr) == 0 {
			// Taps before this version recorded no lastStderr: the
			// lines themselves are in the file.
			x.LastStderr = append([]string(nil), b.stderr...)
		}
		b.stderr = nil
		if e.Code != nil {
			x.Code = *e.Code
		}
		if e.Error != "" && e.Signal == "" {
			x.Err = errors.New(e.Error)
		}
		return mcp.ExitEvent{Time: e.Time, Exit: x}
	case "local_error":
		return mcp.LocalErrorEvent{Time: e.Time, Err: &mcp.LocalError{Kind: parseLocalKind(e.ErrorKind),
			Method: e.Method, ID: mcp.ID(e.ID), ReqSeq: e.ReqSeq, Elapsed: fromMs(e.ElapsedMs)}}
	case "transport":
		ev := mcp.TransportEvent{Time: e.Time, Kind: e.TransportKind, Summary: e.Summary, Fields: e.Fields, ClientSession: e.ClientSession}
		if e.Error != "" {
			ev.Err = errors.New(e.Error)
		}
		if e.KeepAlives > 0 {
			b.runs++
			r := &mcp.KeepAliveRun{ID: b.runs, Count: e.KeepAlives, Bytes: e.KeepAliveBytes, Started: e.Time, Last: e.Time, Done: true}
			if e.Since != nil {
				r.Started = *e.Since
			}
			for _, f := range e.Fields {
				switch f.Key {
				case "stream":
					r.Stream = f.Value
				case "comment":
					r.Comment = f.Value
				}
			}
			ev.Run = r
		}
		return ev
	case "diagnostic":
		if b.SkipDiagnostics {
			return nil
		}
		return mcp.DiagnosticEvent{Time: e.Time, Diagnostic: &mcp.Diagnostic{Rule: e.Rule,
			Severity: parseSeverity(e.Severity), Frames: e.Frames, Message: e.Message, Why: e.Why, Fix: e.Fix, SpecRef: e.SpecRef}}
	}
	return nil
}

func (b *Rebuilder) frame(e *Entry) *mcp.Frame {
	raw, err := e.RawBytes()
	f := &mcp.Frame{Seq: e.Seq, Time: e.Time, Dir: parseDir(e.Dir), Transport: e.Transport, Raw: raw,
		Kind: parseKind(e.Kind), Method: e.Method, ID: mcp.ID(e.ID), Problem: e.Problem, ReplyTo: e.ReplyTo,
		Latency: fromMs(e.LatencyMs), UnknownID: e.UnknownID, Duplicate: e.Duplicate, BatchSeq: e.BatchSeq,
		Stream: e.Stream, Probe: e.Probe, ByTap: e.ByTap, ByView: e.ByView, ErrorCode: e.ErrorCode, ClientSession: e.ClientSession}
	if err != nil && f.Problem == "" {
		f.Problem = "the session file's raw_base64 is unreadable: " + err.Error()
	}
	switch f.Kind {
	case mcp.KindRequest:
		// Both ways: the client's answers to the server's requests (a
		// tap records them) name their method too.
		id, ok := b.methodID[f.Method]
		if !ok {
			id = uint32(len(b.methods))
			b.methods = append(b.methods, f.Method)
			b.methodID[f.Method] = id
		}
		b.requests[f.Seq] = id
		if f.Dir == mcp.Outbound && (f.Method == mcp.MethodInitialize || f.Method == mcp.MethodServerDiscover) {
			b.hsRequest = params(raw)
		}
		if _, ok := mcp.LookupList(f.Method); ok && f.Dir == mcp.Outbound {
			var p struct {
				Cursor *string `json:"cursor"`
			}
			_ = json.Unmarshal(params(raw), &p)
			if p.Cursor == nil {
				if b.listings == nil {
					b.listings = map[string]*listing{}
				}
				b.listings[f.Method] = &listing{}
			}
		}
	case mcp.KindResponse, mcp.KindErrorResponse:
		if f.ReplyTo != 0 {
			if id, ok := b.requests[f.ReplyTo]; ok {
				f.ReplyToMethod = b.methods[id]
			}
		}
		var env struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(raw, &env)
		if env.Error != nil {
			f.ErrorMessage = env.Error.Message
		}
		switch m := f.ReplyToMethod; {
		case m == mcp.MethodInitialize || m == mcp.MethodServerDiscover:
			b.hsResult = env.Result
		case m != "" && f.Dir == mcp.Inbound:
			l, ok := mcp.LookupList(m)
			if !ok {
				break
			}
			lst := b.listings[m]
			var page map[string]json.RawMessage
			var items []json.RawMessage
			if f.Kind != mcp.KindResponse || json.Unmarshal(env.Result, &page) != nil || json.Unmarshal(page[l.ItemsKey], &items) != nil {
				delete(b.listings, m) // a failed page ends the listing, unfinished
				break
			}
			b.pages[m] = append(b.pages[m], items...)
			if lst == nil {
				break
			}
			lst.items, lst.pages = append(lst.items, items...), lst.pages+1
			var cursor string
			_ = json.Unmarshal(page["nextCursor"], &cursor)
			if cursor == "" {
				delete(b.listings, m)
				if lst.items == nil {
					lst.items = []json.RawMessage{}
				}
				b.derived = append(b.derived, mcp.ListEvent{Time: f.Time, Method: m, Items: lst.items, Pages: lst.pages})
			}
		}
	}
	return f
}

func params(raw []byte) json.RawMessage {
	var env struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(raw, &env)
	return env.Params
}

// handshake rebuilds what the handshake line holds and, from the frames,
// what it does not (client side, instructions, the whole result).
func (b *Rebuilder) handshake(e *Entry) *mcp.Handshake {
	era, _ := mcp.ParseEra(e.Era)
	h := &mcp.Handshake{Era: era, OfferedVersion: e.Offered, ProtocolVersion: e.ProtocolVersion,
		ServerCapabilities: e.Capabilities, Result: b.hsResult, Duration: fromMs(e.DurationMs)}
	_ = json.Unmarshal(e.ServerInfo, &h.ServerInfo)
	var req struct {
		Capabilities json.RawMessage    `json:"capabilities"`
		ClientInfo   mcp.Implementation `json:"clientInfo"`
		Meta         json.RawMessage    `json:"_meta"`
	}
	if json.Unmarshal(b.hsRequest, &req) == nil {
		h.ClientCapabilities, h.ClientInfo, h.Meta = req.Capabilities, req.ClientInfo, req.Meta
	}
	if era == mcp.EraModern {
		// The modern era carries the client side in every request's _meta.
		var meta map[string]json.RawMessage
		_ = json.Unmarshal(req.Meta, &meta)
		h.ClientCapabilities = meta[mcp.MetaClientCapabilities]
		_ = json.Unmarshal(meta[mcp.MetaClientInfo], &h.ClientInfo)
	}
	var res struct {
		Instructions      string   `json:"instructions"`
		SupportedVersions []string `json:"supportedVersions"`
	}
	if json.Unmarshal(b.hsResult, &res) == nil {
		h.Instructions, h.SupportedVersions = res.Instructions, res.SupportedVersions
	}
	return h
}

// stderrTail is how many of the last stderr lines an exit carries (as
// mcpscope's stdio client keeps them).
const stderrTail = 12

// HandshakeOf rebuilds a handshake from its request (initialize, or
// server/discover in the modern era) and the response that answered it;
// nil when the answer is not a result that can be read.
func HandshakeOf(req, resp *mcp.Frame) *mcp.Handshake {
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if json.Unmarshal(resp.Raw, &env) != nil || len(env.Result) == 0 {
		return nil
	}
	var res struct {
		ProtocolVersion   string                     `json:"protocolVersion"`
		Capabilities      json.RawMessage            `json:"capabilities"`
		ServerInfo        mcp.Implementation         `json:"serverInfo"`
		Instructions      string                     `json:"instructions"`
		SupportedVersions []string                   `json:"supportedVersions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(env.Result, &res) != nil {
		return nil
	}
	var rq struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    json.RawMessage            `json:"capabilities"`
		ClientInfo      mcp.Implementation         `json:"clientInfo"`
		Meta            map[string]json.RawMessage `json:"_meta"`
	}
	_ = json.Unmarshal(params(req.Raw), &rq)
	h := &mcp.Handshake{Era: mcp.EraLegacy, OfferedVersion: rq.ProtocolVersion, ProtocolVersion: res.ProtocolVersion,
		ClientCapabilities: rq.Capabilities, ClientInfo: rq.ClientInfo, ServerCapabilities: res.Capabilities,
		ServerInfo: res.ServerInfo, Instructions: res.Instructions, Result: env.Result, SupportedVersions: res.SupportedVersions,
		Duration: resp.Latency}
	if req.Method == mcp.MethodServerDiscover {
		h.Era = mcp.EraModern
		var v string
		_ = json.Unmarshal(rq.Meta[mcp.MetaProtocolVersion], &v)
		h.OfferedVersion, h.ProtocolVersion = v, v
		h.ClientCapabilities = rq.Meta[mcp.MetaClientCapabilities]
		_ = json.Unmarshal(rq.Meta[mcp.MetaClientInfo], &h.ClientInfo)
		_ = json.Unmarshal(res.Meta[mcp.MetaServerInfo], &h.ServerInfo)
		h.Meta, _ = json.Marshal(rq.Meta)
	}
	return h
}

func fromMs(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func parseDir(s string) mcp.Direction {
	if s == "out" {
		return mcp.Outbound
	}
	return mcp.Inbound
}

func parseKind(s string) mcp.Kind {
	for k := mcp.KindRequest; k <= mcp.KindInvalid; k++ {
		if k.String() == s {
			return k
		}
	}
	return mcp.KindInvalid
}

func parseState(s string) mcp.State {
	for st := mcp.StateConnecting; st <= mcp.StateLost; st++ {
		if st.String() == s {
			return st
		}
	}
	return mcp.StateFailed
}

func parseSeverity(s string) mcp.Severity {
	for sv := mcp.SeverityHint; sv <= mcp.SeverityError; sv++ {
		if sv.String() == s {
			return sv
		}
	}
	return mcp.SeverityWarning
}

func parseLocalKind(s string) mcp.LocalErrorKind {
	for k := mcp.Timeout; k <= mcp.SignInFailed; k++ {
		if k.String() == s {
			return k
		}
	}
	return mcp.ConnectionLost
}

// File is a whole session file read into memory: its header and its
// events, rebuilt.
type File struct {
	Header Entry
	Events []mcp.Event
	// Cut, when set, says the file ends mid-line: Events are those of its
	// complete lines, and the reader says the file was cut.
	Cut *CutError
}

// ErrModelCapture says a file is a model tap's capture, which holds what
// a client said to its model API, not an MCP session.
var ErrModelCapture = errors.New("a model tap's capture (what a client said to its model API), not an MCP session: mcpscope open FILE lists its requests")

// ReadEvents reads a whole session file and rebuilds its events. A file
// that ends mid-line is read up to its last complete line (File.Cut says
// so); a line that does not parse before the last is an error, and so is
// a model tap's capture (ErrModelCapture).
func ReadEvents(r io.Reader, skipDiagnostics bool) (*File, error) {
	d := NewDecoder(r)
	b := NewRebuilder()
	b.SkipDiagnostics = skipDiagnostics
	out := &File{}
	for {
		e, err := d.Next()
		if errors.Is(err, io.EOF) {
			e, err = d.Finish()
			if errors.Is(err, io.EOF) {
				break
			}
			if cut := (*CutError)(nil); errors.As(err, &cut) {
				out.Cut = cut
				break
			}
		}
		if err != nil {
			return out, err
		}
		if e.Type == "session" && e.Recorder == RecorderModelTap {
			// Its lines are model requests: read as an MCP session it
			// would look like one where nothing happened.
			return out, ErrModelCapture
		}
		out.Events = b.Events(out.Events, &e)
	}
	if d.Header() == nil {
		return out, errors.New("not an mcpscope session file: it is empty")
	}
	out.Header = *d.Header()
	return out, nil
}
