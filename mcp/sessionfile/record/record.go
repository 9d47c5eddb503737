// Package record writes and reads mcpscope session files: every event of a
// session, one JSON object per line, in the order the client saw them.
// `mcpscope call --record FILE` writes them; replay and tap read the same
// format. The format is documented in docs/session-files.md.
//
// Frames keep their exact bytes: "raw" holds them as a JSON string when they
// are valid UTF-8 (JSON escaping is lossless), "raw_base64" otherwise.
// Secrets (environment values) are redacted unless the caller asks not to.
package record

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
)

// FormatVersion is written in the session header; bump it on breaking changes.
const FormatVersion = 1

// Redacted replaces secret values.
const Redacted = redact.Marker

// Entry is one line of a session file. Type says which fields are set.
type Entry struct {
	Type string    `json:"type"` // session, frame, stderr, state, handshake, list, exit, local_error, transport, diagnostic
	Time time.Time `json:"time"`

	// session
	Format   int               `json:"format,omitempty"`
	Mcpscope string            `json:"mcpscope,omitempty"`
	Target   string            `json:"target,omitempty"`
	Command  []string          `json:"command,omitempty"`
	Env      map[string]string `json:"env,omitempty"`
	Cwd      string            `json:"cwd,omitempty"`
	// Recorder says what wrote the file when it is not the conversation
	// of a client and a server of its own: RecorderReplay for the record
	// of `mcpscope replay`, which lists of captures leave out (see IsReplay).
	Recorder string `json:"recorder,omitempty"`
	// ReplayOf is the session file a replay's record replayed.
	ReplayOf string `json:"replayOf,omitempty"`
	// URL is the server's, for a recording whose target is a name (an
	// HTTP tap given --name).
	URL string `json:"url,omitempty"`

	// frame
	Seq       int64   `json:"seq,omitempty"`
	Dir       string  `json:"dir,omitempty"`
	Transport string  `json:"transport,omitempty"`
	Kind      string  `json:"kind,omitempty"`
	Method    string  `json:"method,omitempty"`
	ID        string  `json:"id,omitempty"`
	Size      int     `json:"size,omitempty"`
	Raw       *string `json:"raw,omitempty"`
	RawBase64 string  `json:"raw_base64,omitempty"`
	Problem   string  `json:"problem,omitempty"`
	ReplyTo   int64   `json:"replyTo,omitempty"`
	LatencyMs float64 `json:"latencyMs,omitempty"`
	UnknownID bool    `json:"unknownId,omitempty"`
	Duplicate bool    `json:"duplicate,omitempty"`
	BatchSeq  int64   `json:"batchSeq,omitempty"`
	Stream    string  `json:"stream,omitempty"`
	Probe     bool    `json:"probe,omitempty"`
	ByTap     bool    `json:"byTap,omitempty"`  // a tap wrote it itself (Frame.ByTap)
	ByView    bool    `json:"byView,omitempty"` // a tool's view sent it through mcpscope (Frame.ByView)
	ErrorCode int     `json:"errorCode,omitempty"`
	// ClientSession numbers the client session of a tap carrying several
	// (Frame.ClientSession) on a frame, a handshake and an HTTP transport
	// entry; absent for one conversation, and in files written before it,
	// which read as one conversation.
	ClientSession int `json:"clientSession,omitempty"`

	// stderr; dropped lines (droppedBytes bytes) came before this one in a
	// flood faster than mcpscope keeps, counted and not recorded
	Line         string `json:"line,omitempty"`
	Dropped      int    `json:"dropped,omitempty"`
	DroppedBytes int64  `json:"droppedBytes,omitempty"`

	// state
	State  string `json:"state,omitempty"`
	Detail string `json:"detail,omitempty"`

	// handshake
	Era             string          `json:"era,omitempty"`
	Offered         string          `json:"offered,omitempty"`
	ProtocolVersion string          `json:"protocolVersion,omitempty"`
	ServerInfo      json.RawMessage `json:"serverInfo,omitempty"`
	Capabilities    json.RawMessage `json:"capabilities,omitempty"`
	DurationMs      float64         `json:"durationMs,omitempty"`

	// list
	Count int `json:"count,omitempty"`
	Pages int `json:"pages,omitempty"`

	// exit
	Code       *int     `json:"code,omitempty"`
	Signal     string   `json:"signal,omitempty"`
	Forced     string   `json:"forced,omitempty"`
	LastStderr []string `json:"lastStderr,omitempty"`
	// ClientSignal: a tap's client sent it, and the tap passed it on.
	ClientSignal string `json:"clientSignal,omitempty"`
	// Hurried: the SIGKILL came before SIGTERM's grace was over;
	// Expected: mcpscope had asked the server to stop (mcp.ExitError).
	Hurried  bool `json:"hurried,omitempty"`
	Expected bool `json:"expected,omitempty"`
	// StoppedFor: why mcpscope stopped it ("the reload"); ErrorLine: the
	// line of its stderr that says what went wrong (mcp.ExitError).
	StoppedFor string `json:"stoppedFor,omitempty"`
	ErrorLine  string `json:"errorLine,omitempty"`

	// transport (HTTP, SSE, reconnect, OAuth steps)
	TransportKind string      `json:"transportKind,omitempty"`
	Summary       string      `json:"summary,omitempty"`
	Fields        []mcp.Field `json:"fields,omitempty"`
	// A run of SSE keep-alives, one line when it ended: how many, their
	// bytes, and when the first came (the line's time is the last's).
	KeepAlives     int        `json:"keepAlives,omitempty"`
	KeepAliveBytes int64      `json:"keepAliveBytes,omitempty"`
	Since          *time.Time `json:"since,omitempty"`

	// diagnostic
	Rule     string  `json:"rule,omitempty"`
	Severity string  `json:"severity,omitempty"`
	Frames   []int64 `json:"frames,omitempty"`
	Message  string  `json:"message,omitempty"`
	Why      string  `json:"why,omitempty"`
	Fix      string  `json:"fix,omitempty"`
	SpecRef  string  `json:"specRef,omitempty"`

	// local_error; list, transport and exit errors also use Error
	ErrorKind string  `json:"errorKind,omitempty"`
	ReqSeq    int64   `json:"reqSeq,omitempty"`
	ElapsedMs float64 `json:"elapsedMs,omitempty"`
	Error     string  `json:"error,omitempty"`
}

// RecorderReplay is the Recorder of a replay's record.
const RecorderReplay = "replay"

// TransportClientSignal is the TransportKind of a tap's row saying its
// client sent it a signal (the client's way of ending the conversation).
// The tap writes it at once, before anything else: a client may kill the
// tap right after, and the row is then how the capture ended.
const TransportClientSignal = "client-signal"

// RecorderTap is the Recorder of a tap's capture: a real client's
// conversation with its server, which mcpscope only watched.
const RecorderTap = "tap"

// RecorderModelTap is the Recorder of a model tap's capture: what a
// client and its model API said (docs/model-tap.md). Its lines after the
// header are of type "model", which readers of MCP sessions skip.
const RecorderModelTap = "model-tap"

// IsReplay reports whether a session header is that of a replay's record:
// mcpscope's own re-run of a recording, not a capture of a client.
func (e *Entry) IsReplay() bool { return e.Type == "session" && e.Recorder == RecorderReplay }

// RawBytes returns a frame entry's exact bytes.
func (e *Entry) RawBytes() ([]byte, error) {
	if e.RawBase64 != "" {
		return base64.StdEncoding.DecodeString(e.RawBase64)
	}
	if e.Raw != nil {
		return []byte(*e.Raw), nil
	}
	return nil, nil
}

// Session describes what was connected to; it becomes the first line.
type Session struct {
	Target  string
	Command []string
	Env     []string // KEY=VALUE, as given to the server
	Cwd     string
	// KeepSecrets writes environment values as they are instead of redacting them.
	KeepSecrets bool
	// Recorder, ReplayOf and URL go to the header as they are (see Entry).
	Recorder, ReplayOf, URL string
}

// Writer appends events to a session file. Its Event method is meant to be
// installed as mcp.Options.OnEvent. It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	f   io.WriteCloser
	w   *bufio.Writer
	enc *json.Encoder
	// err is the first write error: nothing is written after it, so the
	// file ends where that write failed (readers keep its whole lines).
	err error
	// onFail, when set, is told of err once, when it happens.
	onFail func(error)
	// keepSecrets leaves URL query secrets in transport events (see
	// redact.URLs); frames are always written byte for byte.
	keepSecrets bool
	// stopFlush ends the FlushEvery goroutine; flushed says it has.
	stopFlush chan struct{}
	flushed   chan struct{}
}

// FlushEvery flushes the buffer every d while the writer is open, so that
// a reader following the file (`mcpscope open` on a running session) sees
// each event within d instead of when 64 KiB have gathered. Call it once.
func (w *Writer) FlushEvery(d time.Duration) {
	w.stopFlush, w.flushed = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.flushed)
		t := time.NewTicker(d)
		defer t.Stop()
		for {
			select {
			case <-w.stopFlush:
				return
			case <-t.C:
				w.mu.Lock()
				var failed error
				if w.err == nil && w.w.Buffered() > 0 {
					failed = w.failLocked(w.w.Flush())
				}
				w.mu.Unlock()
				w.tell(failed)
			}
		}
	}()
}

// Create opens path (truncating it) and writes the session header.
func Create(path string, s Session) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return NewWriter(f, s), nil
}

// CreateNew is Create for a file that must not exist yet: it fails
// with an error wrapping fs.ErrExist rather than replace one.
func CreateNew(path string, s Session) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return NewWriter(f, s), nil
}

// NewWriter writes a session to w, which Close closes.
func NewWriter(w io.WriteCloser, s Session) *Writer {
	bw := bufio.NewWriterSize(w, 64<<10)
	rw := &Writer{f: w, w: bw, enc: json.NewEncoder(bw)}
	rw.enc.SetEscapeHTML(false)
	env := map[string]string{}
	for _, kv := range s.Env {
		k, v, _ := cut(kv)
		if !s.KeepSecrets {
			v = Redacted
		}
		env[k] = v
	}
	if len(env) == 0 {
		env = nil
	}
	target, command, url := s.Target, s.Command, s.URL
	if !s.KeepSecrets {
		// The command's secrets (--api-key X, GITHUB_TOKEN=X) and a
		// URL's (?api_key=X) are redacted like the environment's values.
		target, command, url = redact.Command(target), redact.Args(s.Command), redact.URLs(url)
	}
	rw.keepSecrets = s.KeepSecrets
	rw.write(&Entry{Type: "session", Time: time.Now(), Format: FormatVersion, Mcpscope: mcp.ClientVersion,
		Target: target, Command: command, Env: env, Cwd: s.Cwd, Recorder: s.Recorder, ReplayOf: s.ReplayOf, URL: url})
	return rw
}

func cut(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// OnFail has f told, once and at once, when a write to the file fails
// (a full disk): a recording that goes on for long (the TUI's, a tap's)
// says so while it runs, not only when it is closed. f runs on the
// writing goroutine and must not call the Writer. Call it before the
// first event.
func (w *Writer) OnFail(f func(error)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onFail = f
}

// Err is the first write error (nil while every write succeeded), in the
// words Close and Flush report it with.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.wrapped(w.err)
}

// failLocked keeps err as the first write error; it returns what to tell
// onFail (nil when nothing new failed). The caller holds mu.
func (w *Writer) failLocked(err error) error {
	if err == nil || w.err != nil {
		return nil
	}
	w.err = err
	if w.onFail == nil {
		return nil
	}
	return w.wrapped(err)
}

// tell hands a new failure to onFail, outside the lock.
func (w *Writer) tell(failed error) {
	if failed == nil {
		return
	}
	w.mu.Lock()
	f := w.onFail
	w.mu.Unlock()
	f(failed)
}

// wrapped says what a write error means for the file.
func (w *Writer) wrapped(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("record: the session file is incomplete, it ends where this write failed: %w", err)
}

func (w *Writer) write(e *Entry) {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	failed := w.failLocked(w.enc.Encode(e))
	w.mu.Unlock()
	w.tell(failed)
}

// Line appends one entry its caller encoded itself (a tap encodes frames
// on a hot path without reflection); line must be one JSON object that
// decodes as an Entry, without the newline.
func (w *Writer) Line(line []byte) {
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	_, err := w.w.Write(line)
	if err == nil {
		err = w.w.WriteByte('\n')
	}
	failed := w.failLocked(err)
	w.mu.Unlock()
	w.tell(failed)
}

// Event records one event. Of a run of SSE keep-alives only the report
// that ends it is written: one line per run, however long.
func (w *Writer) Event(ev mcp.Event) {
	if te, ok := ev.(mcp.TransportEvent); ok && te.Run != nil && !te.Run.Done {
		return
	}
	var streamed []byte // a big frame's bytes, written from where they are
	if fe, ok := ev.(mcp.FrameEvent); ok && len(fe.Frame.Raw) >= streamedBytes && utf8.Valid(fe.Frame.Raw) {
		g := *fe.Frame
		streamed, g.Raw = g.Raw, nil
		ev = mcp.FrameEvent{Frame: &g}
	}
	e := FromEvent(ev)
	if streamed != nil {
		e.Size, e.Raw = len(streamed), &streamedRaw
	}
	if !w.keepSecrets && e.Type == "transport" {
		// Timeline rows name URLs (requests, redirects, OAuth steps) and
		// headers: their secret query parameters and credentials are
		// redacted. Frames are wire bytes and stay exact.
		e.Summary = redact.URLs(e.Summary)
		e.Error = redact.URLs(e.Error)
		fields := make([]mcp.Field, len(e.Fields))
		for i, f := range e.Fields {
			fields[i] = mcp.Field{Key: f.Key, Value: redact.Header(f.Key, f.Value)}
		}
		e.Fields = fields
	}
	if !w.keepSecrets && e.Type == "frame" {
		e.Stream = redact.URLs(e.Stream) // the stream's name, not the frame's bytes
	}
	if streamed != nil {
		w.writeStreamed(e, streamed)
		return
	}
	if !w.keepSecrets && (e.Type == "local_error" || e.Type == "state" || e.Type == "list" || e.Type == "exit") {
		e.Error, e.Detail = redact.URLs(e.Error), redact.URLs(e.Detail)
	}
	w.write(e)
}

// streamedBytes is the size from which a frame's bytes are written to the
// file a piece at a time (writeStreamed), not copied into a string and
// encoded whole: a 20 MB result recorded was held three times more.
const streamedBytes = 1 << 20

// streamedRaw is the Raw a streamed frame's entry is encoded with: its
// place in the line is where writeStreamed writes the frame's bytes.
var streamedRaw = "mcpscope-streamed-raw"

// writeStreamed writes a frame's entry whose Raw is streamedRaw: the
// entry as encoding/json gives it, with the raw member's string written
// from raw (valid UTF-8) a piece at a time, escaped as the encoder
// escapes it.
func (w *Writer) writeStreamed(e *Entry, raw []byte) {
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		w.mu.Lock()
		failed := w.failLocked(err)
		w.mu.Unlock()
		w.tell(failed)
		return
	}
	// Inside the entry's other strings every quote is escaped, so the
	// member can only be the raw one.
	member := []byte(`,"raw":"` + streamedRaw + `"`)
	at := bytes.Index(line.Bytes(), member)
	head, tail := line.Bytes()[:at+len(member)-len(streamedRaw)-1], line.Bytes()[at+len(member)-1:]
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	_, err := w.w.Write(head)
	var piece bytes.Buffer
	penc := json.NewEncoder(&piece)
	penc.SetEscapeHTML(false)
	for rest := raw; len(rest) > 0 && err == nil; {
		n := min(len(rest), 64<<10)
		for n < len(rest) && !utf8.RuneStart(rest[n]) {
			n-- // a piece ends between two runes
		}
		piece.Reset()
		// A view, not a copy: a frame's bytes never change. Valid UTF-8
		// always encodes.
		_ = penc.Encode(unsafe.String(&rest[0], n))
		// The piece's quotes and newline go; its escapes stay.
		_, err = w.w.Write(piece.Bytes()[1 : piece.Len()-2])
		rest = rest[n:]
	}
	if err == nil {
		_, err = w.w.Write(tail)
	}
	failed := w.failLocked(err)
	w.mu.Unlock()
	w.tell(failed)
}

// Flush writes what is buffered to the file, so that a reader following
// the file (a tap's viewer) sees it. It reports the first write error.
func (w *Writer) Flush() error {
	w.mu.Lock()
	var failed error
	if w.err == nil {
		failed = w.failLocked(w.w.Flush())
	}
	err := w.wrapped(w.err)
	w.mu.Unlock()
	w.tell(failed)
	return err
}

// Close flushes the file, syncs it to the disk and closes it, reporting
// the first error of any write, the sync or the close: a file system
// that takes writes and fails later (quotas, NFS) says so there.
func (w *Writer) Close() error {
	if w.stopFlush != nil {
		close(w.stopFlush)
		<-w.flushed
		w.stopFlush = nil
	}
	w.mu.Lock()
	var failed error
	if w.err == nil {
		failed = w.failLocked(w.w.Flush())
	}
	// The sync and the close run aside: a disk slow to write back what
	// the system holds does not hold up the command's exit past
	// syncBudget (the system finishes the writeback); an error that
	// comes within it is reported.
	flushed := w.err == nil
	done := make(chan error, 1)
	go func() {
		var err error
		if flushed {
			err = syncFile(w.f)
		}
		if cerr := w.f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	t := time.NewTimer(syncBudget)
	select {
	case err := <-done:
		if w.err == nil {
			failed = w.failLocked(err)
		}
	case <-t.C:
	}
	t.Stop()
	err := w.wrapped(w.err)
	w.mu.Unlock()
	w.tell(failed)
	return err
}

// syncBudget bounds how long Close waits for the file's sync and close.
const syncBudget = time.Second

// syncFile makes a regular file's writes durable, so that an error the
// file system holds back until then is seen; pipes and devices are left
// alone (they cannot be synced).
func syncFile(w io.WriteCloser) error {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	return f.Sync()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// FromEvent converts an event to its session-file entry.
func FromEvent(ev mcp.Event) *Entry {
	switch e := ev.(type) {
	case mcp.FrameEvent:
		f := e.Frame
		out := &Entry{Type: "frame", Time: f.Time, Seq: f.Seq, Dir: f.Dir.String(), Transport: f.Transport,
			Kind: f.Kind.String(), Method: f.Method, ID: string(f.ID), Size: f.Size(), Problem: f.Problem,
			ReplyTo: f.ReplyTo, LatencyMs: ms(f.Latency), UnknownID: f.UnknownID, Duplicate: f.Duplicate,
			BatchSeq: f.BatchSeq, Probe: f.Probe, ByTap: f.ByTap, ByView: f.ByView, ErrorCode: f.ErrorCode, Stream: f.Stream,
			ClientSession: f.ClientSession}
		if utf8.Valid(f.Raw) {
			s := string(f.Raw)
			out.Raw = &s
		} else {
			out.RawBase64 = base64.StdEncoding.EncodeToString(f.Raw)
		}
		return out
	case mcp.StderrEvent:
		return &Entry{Type: "stderr", Time: e.Time, Line: e.Line, Dropped: e.Dropped, DroppedBytes: e.DroppedBytes}
	case mcp.StateEvent:
		return &Entry{Type: "state", Time: e.Time, State: e.State.String(), Detail: e.Detail}
	case mcp.HandshakeEvent:
		h := e.Handshake
		si, _ := json.Marshal(h.ServerInfo)
		return &Entry{Type: "handshake", Time: e.Time, Era: h.Era.String(), Offered: h.OfferedVersion,
			ProtocolVersion: h.ProtocolVersion, ServerInfo: si, Capabilities: h.ServerCapabilities, DurationMs: ms(h.Duration),
			ClientSession: e.ClientSession}
	case mcp.ListEvent:
		out := &Entry{Type: "list", Time: e.Time, Method: e.Method, Count: len(e.Items), Pages: e.Pages}
		if e.Err != nil {
			out.Error = e.Err.Error()
		}
		return out
	case mcp.ExitEvent:
		x := e.Exit
		code := x.Code
		out := &Entry{Type: "exit", Time: e.Time, Code: &code, Signal: x.Signal, Forced: x.Forced, LastStderr: x.LastStderr,
			ClientSignal: x.ClientSignal, Hurried: x.Hurried, Expected: x.Expected, StoppedFor: x.StoppedFor, ErrorLine: x.ErrorLine}
		if x.Err != nil {
			out.Error = x.Err.Error()
		}
		return out
	case mcp.LocalErrorEvent:
		le := e.Err
		return &Entry{Type: "local_error", Time: e.Time, ErrorKind: le.Kind.String(), Method: le.Method, ID: string(le.ID),
			ReqSeq: le.ReqSeq, ElapsedMs: ms(le.Elapsed), Error: le.Error()}
	case mcp.TransportEvent:
		out := &Entry{Type: "transport", Time: e.Time, TransportKind: e.Kind, Summary: e.Summary, Fields: e.Fields,
			ClientSession: e.ClientSession}
		if e.Err != nil {
			out.Error = e.Err.Error()
		}
		if r := e.Run; r != nil {
			since := r.Started
			out.Time, out.KeepAlives, out.KeepAliveBytes, out.Since = r.Last, r.Count, r.Bytes, &since
		}
		return out
	case mcp.DiagnosticEvent:
		d := e.Diagnostic
		return &Entry{Type: "diagnostic", Time: e.Time, Rule: d.Rule, Severity: d.Severity.String(), Frames: d.Frames,
			Message: d.Message, Why: d.Why, Fix: d.Fix, SpecRef: d.SpecRef}
	}
	return &Entry{Type: "unknown", Time: ev.At()}
}

// Read parses a whole session file.
func Read(r io.Reader) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<30)
	for n := 1; sc.Scan(); n++ {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("session file line %d: %w", n, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("session file: %w", err)
	}
	if len(out) == 0 || out[0].Type != "session" {
		return out, errors.New("not an mcpscope session file: the first line is not a session header")
	}
	return out, nil
}
