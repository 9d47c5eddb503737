package tap

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/mcp/sessionfile/record"
)

// Info describes one tap. The tap writes it in its live file (ID.live,
// next to the session file) and the hub sends it first to every viewer
// that connects.
type Info struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	PID       int       `json:"pid"`
	Transport string    `json:"transport"`
	Command   []string  `json:"command,omitempty"`
	URL       string    `json:"url,omitempty"`
	Listen    string    `json:"listen,omitempty"`
	File      string    `json:"sessionFile"`
	Socket    string    `json:"socket,omitempty"`
	Started   time.Time `json:"started"`
	// CaptureError, when set, says why the capture stops short: a write
	// to it failed (a full disk) and the tap went on passing the
	// conversation, unrecorded from there.
	CaptureError string `json:"captureError,omitempty"`
}

// Label is how the tap is named in lists: its name, or its command.
func (i *Info) Label() string {
	if i.Name != "" {
		return i.Name
	}
	if i.URL != "" {
		return i.URL
	}
	return strings.Join(i.Command, " ")
}

// viewerWriteTimeout bounds one write to a viewer: a viewer that does not
// read for this long is dropped (it reads what it missed from the file).
const viewerWriteTimeout = 2 * time.Second

// hub is a tap's socket. It never makes the tap wait: each viewer has a
// goroutine and a one-slot wake-up channel, and a wake-up that finds the
// slot full is dropped (the viewer will read everything when it gets to it).
type hub struct {
	ln    net.Listener
	sock  string
	hello []byte

	mu      sync.Mutex
	viewers map[*viewerConn]struct{}
	closed  bool
	wg      sync.WaitGroup
}

type viewerConn struct {
	c    net.Conn
	wake chan struct{}
	done chan struct{}
}

// startHub opens the tap's socket in the hub directory.
func startHub(info *Info) (*hub, error) {
	dir, err := HubDir()
	if err != nil {
		return nil, err
	}
	if err := ensurePrivateDir(dir); err != nil {
		return nil, err
	}
	// A short socket name: a Unix socket's path is limited to about 100
	// bytes, and a temporary directory can take half of that.
	sum := fnv.New64a()
	sum.Write([]byte(info.ID))
	sock := filepath.Join(dir, fmt.Sprintf("%016x.sock", sum.Sum64()))
	info.Socket = sock
	_ = os.Remove(sock)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("tap: hub socket: %w", err)
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		_ = ln.Close()
		return nil, fmt.Errorf("tap: hub socket: %w", err)
	}
	hello, _ := json.Marshal(info)
	h := &hub{ln: ln, sock: sock, hello: append(hello, '\n'), viewers: map[*viewerConn]struct{}{}}
	h.wg.Add(1)
	go h.accept()
	return h, nil
}

func (h *hub) accept() {
	defer h.wg.Done()
	for {
		c, err := h.ln.Accept()
		if err != nil {
			return
		}
		v := &viewerConn{c: c, wake: make(chan struct{}, 1), done: make(chan struct{})}
		h.mu.Lock()
		if h.closed {
			h.mu.Unlock()
			_ = c.Close()
			return
		}
		h.viewers[v] = struct{}{}
		h.wg.Add(1)
		h.mu.Unlock()
		go h.serve(v)
	}
}

// serve sends the hello, then one line per wake-up, until the viewer goes
// away or the tap ends.
func (h *hub) serve(v *viewerConn) {
	defer h.wg.Done()
	defer func() {
		h.mu.Lock()
		delete(h.viewers, v)
		h.mu.Unlock()
		_ = v.c.Close()
	}()
	write := func(b []byte) bool {
		_ = v.c.SetWriteDeadline(time.Now().Add(viewerWriteTimeout))
		_, err := v.c.Write(b)
		return err == nil
	}
	if !write(h.hello) {
		return
	}
	for {
		select {
		case <-v.wake:
			if !write([]byte("+\n")) {
				return
			}
		case <-v.done:
			return
		}
	}
}

// notify wakes every viewer without waiting for any.
func (h *hub) notify() {
	h.mu.Lock()
	for v := range h.viewers {
		select {
		case v.wake <- struct{}{}:
		default:
		}
	}
	h.mu.Unlock()
}

// close ends every viewer's connection (which tells them the tap ended)
// and removes the socket.
func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	for v := range h.viewers {
		close(v.done)
	}
	h.mu.Unlock()
	_ = h.ln.Close()
	h.wg.Wait()
	_ = os.Remove(h.sock)
}

// Listed is one tap the viewer can open: live (its tap's process runs) or
// a recent capture (a finished session file).
type Listed struct {
	Info
	// Live says the tap's process was running when the list was made.
	Live bool
	// Socket is the live tap's hub socket ("" when it has none).
	Socket string
	// Size of the session file, in bytes.
	Size int64
	// Modified is when the session file last changed.
	Modified time.Time
	// Cut, when set, says the capture is incomplete and why: its tap
	// could not write the rest (CaptureError), or it ends mid-line.
	Cut string
}

// maxRecent bounds the recent captures listed.
const maxRecent = 20

// List finds the live taps (their held live files) and the recent
// captures (session files), live ones first, newest first, in every
// directory taps record in (captureDirs), whatever environment each tap
// was given. The live file of a tap that died without cleaning up is
// removed, with its socket.
func List() ([]Listed, error) {
	var live, recent []Listed
	seen := map[string]bool{}
	for _, dir := range captureDirs() {
		lives, _ := filepath.Glob(filepath.Join(dir, "*"+liveSuffix))
		for _, p := range lives {
			info, running, err := readLive(p)
			if err != nil {
				continue
			}
			file := strings.TrimSuffix(p, liveSuffix) + ".jsonl"
			if !running {
				// A tap that died after its capture failed leaves the
				// reason as the capture's cut mark.
				if info.CaptureError == "" || os.Rename(p, cutPath(file)) != nil {
					_ = os.Remove(p)
				}
				removeStaleSocket(info.Socket)
				continue
			}
			info.File = file // where it is, whatever path the tap saw
			l := Listed{Info: info, Live: true, Socket: info.Socket, Cut: info.CaptureError}
			if fi, err := os.Stat(file); err == nil {
				l.Size, l.Modified = fi.Size(), fi.ModTime()
			}
			seen[file] = true
			live = append(live, l)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, p := range files {
			if seen[p] {
				continue
			}
			seen[p] = true
			fi, err := os.Stat(p)
			if err != nil {
				continue
			}
			recent = append(recent, Listed{Info: Info{File: p, ID: strings.TrimSuffix(filepath.Base(p), ".jsonl")}, Size: fi.Size(), Modified: fi.ModTime()})
		}
	}
	sort.Slice(live, func(i, j int) bool { return live[i].Started.After(live[j].Started) })
	sort.Slice(recent, func(i, j int) bool { return recent[i].Modified.After(recent[j].Modified) })
	// A replay's record (mcpscope replay writes it beside the capture it
	// replays) is not a capture.
	kept := recent[:0]
	for i := range recent {
		if len(kept) == maxRecent {
			break
		}
		if describe(&recent[i]) {
			kept = append(kept, recent[i])
		}
	}
	return append(live, kept...), nil
}

// removeStaleSocket removes the socket a dead tap left, when it is a
// socket that nobody answers on.
func removeStaleSocket(sock string) {
	if sock == "" {
		return
	}
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return
	}
	if c, err := net.DialTimeout("unix", sock, 100*time.Millisecond); err == nil {
		_ = c.Close()
		return
	}
	_ = os.Remove(sock)
}

// describe fills a capture's name and command from its session header;
// false when the header says it is a replay's record.
func describe(l *Listed) bool {
	e, err := sessionHeader(l.File)
	if err != nil {
		return true
	}
	if e.IsReplay() {
		return false
	}
	l.Name, l.Command, l.Started, l.URL = e.Target, e.Command, e.Time, e.URL
	l.Cut = endedCut(l.File)
	if l.URL == "" && len(e.Command) == 0 && strings.Contains(e.Target, "://") {
		l.URL = e.Target
	}
	if l.URL != "" {
		l.Transport = "http"
	}
	if e.Recorder == record.RecorderModelTap {
		l.Transport = TransportModel
	}
	return true
}

// ErrNoHub says a tap's socket did not answer: the tap has ended.
var ErrNoHub = errors.New("the tap has ended")

// dialHub connects to a live tap. The returned channel gets a value for
// each wake-up and is closed when the tap ends (or the connection breaks).
func dialHub(sock string) (*Info, <-chan struct{}, func(), error) {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrNoHub, err)
	}
	br := bufio.NewReader(c)
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	line, err := br.ReadBytes('\n')
	if err != nil {
		_ = c.Close()
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrNoHub, err)
	}
	_ = c.SetReadDeadline(time.Time{})
	var info Info
	if err := json.Unmarshal(line, &info); err != nil {
		_ = c.Close()
		return nil, nil, nil, fmt.Errorf("tap: the hub's hello: %w", err)
	}
	wake := make(chan struct{}, 1)
	go func() {
		defer close(wake)
		for {
			if _, err := br.ReadBytes('\n'); err != nil {
				return
			}
			select {
			case wake <- struct{}{}:
			default:
			}
		}
	}()
	return &info, wake, func() { _ = c.Close() }, nil
}
