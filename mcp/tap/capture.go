package tap

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Recording says where and how a tap records. The zero value records to
// StateDir with a hub in HubDir and environment values redacted.
type Recording struct {
	// Dir overrides StateDir (tests).
	Dir string
	// NoHub records without a live socket.
	NoHub bool
	// KeepSecrets writes environment values as they are.
	KeepSecrets bool
	// Warn receives the one line said when recording or the hub fails; the
	// tap goes on copying either way.
	Warn func(string)
	// OnEvent, when set, sees every recorded frame, an HTTP tap's
	// exchanges and the server's exit, in order, on the recorder's goroutine (never the copy's, which it
	// cannot slow): the OpenTelemetry export. A frame's Raw is valid only
	// during the call.
	OnEvent func(mcp.Event)
	// wrapFile, when set, stands between the recorder and its file
	// (tests: a disk that fills up).
	wrapFile func(io.WriteCloser) io.WriteCloser
}

// capture is one tapped conversation's recorder, file, live file and hub.
type capture struct {
	info *Info
	rec  *recorder
	w    *record.Writer
	hub  *hub
	live *liveFile
	warn func(string)
	// cut is why the capture stops short ("" while it is whole); set
	// once, by failed.
	cutOnce sync.Once
	cut     atomic.Pointer[string]
}

// maxCutReason bounds the reason a cut mark keeps (it must fit the live
// file's room).
const maxCutReason = 400

// failed marks the capture cut when a write to it fails: one line on the
// tap's stderr, and the reason in the live file, so that `taps --list`
// and a viewer say the capture is incomplete. The copy between client
// and server goes on untouched; the recorder's writes are dropped from
// here.
func (c *capture) failed(err error) {
	c.cutOnce.Do(func() {
		// The file is named beside the reason wherever it is shown: the
		// reason is the failed operation and its cause.
		reason := err.Error()
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			reason = "the " + pe.Op + " failed: " + pe.Err.Error()
		}
		if len(reason) > maxCutReason {
			reason = reason[:maxCutReason] + "…"
		}
		c.cut.Store(&reason)
		c.warn("the capture " + c.info.File + " stops here (" + reason + "); the conversation goes on through the tap, unrecorded")
		mark := *c.info
		mark.CaptureError = reason
		if c.live == nil || c.live.markCut(&mark) != nil {
			_ = writeCut(c.info.File, &mark)
		}
	})
}

// cutReason is why the capture stops short, "" while it is whole.
func (c *capture) cutReason() string {
	if r := c.cut.Load(); r != nil {
		return *r
	}
	return ""
}

type discardCloser struct{}

func (discardCloser) Write(p []byte) (int, error) { return len(p), nil }
func (discardCloser) Close() error                { return nil }

var _ io.WriteCloser = discardCloser{}

// safeName keeps a name usable in a file name.
func safeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 40 {
			break
		}
	}
	return strings.Trim(b.String(), "._")
}

func startCapture(info *Info, env []string, opt Recording) *capture {
	warn := opt.Warn
	if warn == nil {
		warn = func(string) {}
	}
	info.PID = os.Getpid()
	info.Started = time.Now()
	label := info.Name
	if label == "" && len(info.Command) > 0 {
		label = filepath.Base(info.Command[0])
	}
	info.ID = fmt.Sprintf("%s-%d", info.Started.Format("20060102-150405"), info.PID)
	if n := safeName(label); n != "" {
		info.ID += "-" + n
	}
	c := &capture{info: info, warn: warn}
	dir := opt.Dir
	if dir == "" {
		d, err := StateDir()
		if err != nil {
			warn(err.Error())
		}
		dir = d
	}
	sess := record.Session{Target: info.Label(), Command: info.Command, Env: env, KeepSecrets: opt.KeepSecrets,
		Recorder: record.RecorderTap, URL: info.URL}
	sess.Cwd, _ = os.Getwd()
	if dir != "" {
		if err := ensurePrivateDir(dir); err != nil {
			warn("not recording this conversation: " + err.Error())
		} else {
			w, err := createCapture(dir, info, sess, opt.wrapFile)
			if err != nil {
				warn("not recording this conversation: " + err.Error())
				info.File = ""
			} else {
				c.w = w
				w.OnFail(c.failed)
			}
		}
	}
	if c.w == nil {
		c.w = record.NewWriter(discardCloser{}, sess)
	}
	if !opt.NoHub && info.File != "" {
		h, err := startHub(info)
		if err != nil {
			warn("no live wake-ups for a viewer of this conversation (it is still recorded in " + info.File + " and followed from there): " + err.Error())
		} else {
			c.hub = h
		}
	}
	if info.File != "" {
		// After the hub: the live file names its socket.
		l, err := holdLive(filepath.Dir(info.File), info)
		if err != nil {
			warn("a viewer will take this conversation for a finished one (it is still recorded in " + info.File + "): " + err.Error())
		} else {
			c.live = l
		}
	}
	notify := func() {}
	if c.hub != nil {
		notify = c.hub.notify
	}
	_ = c.w.Flush()
	spillDir := "" // the recorder's overflow: next to the record, which is private
	if info.File != "" {
		spillDir = filepath.Dir(info.File)
	}
	c.rec = newRecorder(info.Transport, c.w, notify, opt.KeepSecrets, spillDir)
	c.rec.onEvent = opt.OnEvent
	return c
}

// close records what is queued, ends the hub, closes the file and
// releases the live file: only then is the capture finished.
func (c *capture) close() {
	c.rec.close()
	if c.hub != nil {
		c.hub.close()
	}
	_ = c.w.Close() // a failed sync or close is a cut too (failed)
	if c.cutReason() == "" {
		c.live.release()
		return
	}
	if c.live != nil && c.live.keepAsCut(c.info.File) != nil {
		mark := *c.info
		mark.CaptureError = c.cutReason()
		_ = writeCut(c.info.File, &mark)
	}
}

// createCapture creates the tap's session file under a name no other
// capture has: the ID names the second and the process, and two taps in
// one process (or a process number used again within the second) get a
// counter rather than one replacing the other's record.
func createCapture(dir string, info *Info, sess record.Session, wrap func(io.WriteCloser) io.WriteCloser) (*record.Writer, error) {
	id := info.ID
	for n := 2; ; n++ {
		info.File = filepath.Join(dir, info.ID+".jsonl")
		f, err := os.OpenFile(info.File, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			var file io.WriteCloser = f
			if wrap != nil {
				file = wrap(f)
			}
			return record.NewWriter(file, sess), nil
		}
		if !errors.Is(err, fs.ErrExist) || n > 100 {
			return nil, fmt.Errorf("record: %w", err)
		}
		info.ID = fmt.Sprintf("%s-%d", id, n)
	}
}
