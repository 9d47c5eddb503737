package tap

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Capture says whether the session file at path is a tap's capture and,
// if it is, describes it as List does (live while its tap runs), so that
// `mcpscope open` on a capture shows what `mcpscope taps` shows. A file is
// a capture when its header says a tap recorded it, or when it is one of
// the captures List finds, or (a capture written before headers said so,
// and copied elsewhere) when its client is not mcpscope itself: every
// other recording is of mcpscope's own client.
func Capture(path string) (Listed, bool) {
	if fi, err := os.Stat(path); err == nil {
		if taps, err := List(); err == nil {
			for _, l := range taps {
				if gi, err := os.Stat(l.File); err == nil && os.SameFile(fi, gi) {
					return l, true
				}
			}
		}
	}
	head, err := sessionHeader(path)
	if err != nil || head.Recorder != "" && head.Recorder != record.RecorderTap && head.Recorder != record.RecorderModelTap {
		return Listed{}, false
	}
	if head.Recorder == "" && !realClient(path) {
		return Listed{}, false
	}
	l := Listed{Info: Info{File: path, ID: strings.TrimSuffix(filepath.Base(path), ".jsonl")}}
	if fi, err := os.Stat(path); err == nil {
		l.Size, l.Modified = fi.Size(), fi.ModTime()
	}
	describe(&l)
	return l, true
}

// realClient says whether the recording's first handshake request (in its
// first lines) came from a client other than mcpscope.
func realClient(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer func() { _ = f.Close() }()
	d := record.NewDecoder(io.LimitReader(f, 4<<20))
	rb := record.NewRebuilder()
	for i := 0; i < 200; i++ {
		e, err := d.Next()
		if err != nil {
			return false
		}
		fe, ok := rb.Event(&e).(mcp.FrameEvent)
		if !ok || fe.Frame.Dir != mcp.Outbound || fe.Frame.Method != mcp.MethodInitialize && fe.Frame.Method != mcp.MethodServerDiscover {
			continue
		}
		info, _ := profileForRequest(fe.Frame)
		return info.Name != "" && info.Name != "mcpscope"
	}
	return false
}
