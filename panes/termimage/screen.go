package termimage

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// Protocol is how images are drawn.
type Protocol uint8

const (
	// Off draws no image: the block's header line says what it is.
	Off Protocol = iota
	// Blocks draws half-block cells in 24-bit colour: any terminal.
	Blocks
	// Kitty sends the image with the kitty graphics protocol and draws
	// its Unicode placeholders (kitty, Ghostty).
	Kitty
)

func (p Protocol) String() string {
	switch p {
	case Blocks:
		return "blocks"
	case Kitty:
		return "kitty"
	}
	return "off"
}

// Modes are the values of the images setting, "auto" first.
var Modes = []string{"auto", "kitty", "blocks", "off"}

// ParseMode reads the images setting (--images): auto, kitty, blocks or
// off.
func ParseMode(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "auto", nil
	}
	if !slices.Contains(Modes, s) {
		return "", fmt.Errorf("--images %q: want one of %s", s, strings.Join(Modes, ", "))
	}
	return s, nil
}

// Screen is what the views share about drawing images: the protocol in
// use, the thumbnails' cache, the kitty image ids handed out, and the
// sequences waiting to be written (Take), which the root writes with
// tea.Raw after each update: a pane has no Cmd to return from SetSize.
type Screen struct {
	Cache *Cache

	mu       sync.Mutex
	protocol Protocol
	tmux     bool // kitty sequences go through tmux's passthrough
	nextID   int
	live     map[int]bool // kitty ids sent and not deleted
	out      strings.Builder
}

// NewScreen makes a Screen that draws with p until told otherwise.
func NewScreen(p Protocol) *Screen {
	return &Screen{Cache: NewCache(DefaultCacheBytes), protocol: p, nextID: firstID, live: map[int]bool{}}
}

// firstID starts mcpscope's kitty ids away from the small numbers other
// programs in the same window pick; ids fit the 24 bits of a colour.
const firstID = 0x4d5300

// Protocol is the protocol in use.
func (s *Screen) Protocol() Protocol {
	if s == nil {
		return Off
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.protocol
}

// Set changes the protocol (once detection is done); tmux says kitty
// sequences need tmux's passthrough. Kitty images sent before are
// deleted.
func (s *Screen) Set(p Protocol, tmux bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p != Kitty {
		s.deleteAllLocked()
	}
	s.protocol, s.tmux = p, tmux
}

// NewID hands out a kitty image id.
func (s *Screen) NewID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	if s.nextID >= 1<<24 {
		s.nextID = firstID + 1
	}
	return s.nextID
}

// Send queues image id's transmission and placement over cols×rows.
func (s *Screen) Send(id int, img *Image, cols, rows int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seq, err := KittyTransmit(img.Thumb, id, cols, rows, s.tmux)
	if err != nil {
		return err
	}
	s.out.WriteString(seq)
	s.live[id] = true
	return nil
}

// Delete queues the deletion of kitty images sent before.
func (s *Screen) Delete(ids ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if s.live[id] {
			s.out.WriteString(KittyDelete(id, s.tmux))
			delete(s.live, id)
		}
	}
}

// DeleteAll queues the deletion of every kitty image still sent (at
// exit).
func (s *Screen) DeleteAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.deleteAllLocked()
}

func (s *Screen) deleteAllLocked() {
	for id := range s.live {
		s.out.WriteString(KittyDelete(id, s.tmux))
	}
	clear(s.live)
}

// Live is how many kitty images are sent and not deleted.
func (s *Screen) Live() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// Take is what waits to be written to the terminal, and empties it.
func (s *Screen) Take() string {
	if s == nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.out.String()
	s.out.Reset()
	return out
}

// Detector finds out how the terminal draws images: it asks the terminal
// (the kitty graphics query, then the primary device attributes, which
// every terminal answers, so that answer ends the wait) and, under tmux,
// asks tmux first whether it passes sequences through.
type Detector struct {
	mode  string // auto, kitty, blocks, off
	inTmx bool   // TMUX is set
	// passthrough is tmux's allow-passthrough: on, all, or what else.
	passthrough bool
	// outerTerm is the TERM of the terminal tmux's client runs in, a
	// hint where tmux keeps the terminal's answer to itself.
	outerTerm string
	kitty     bool
	sixel     bool
	done      bool
	version   string
}

// passthroughMsg is tmux's allow-passthrough and its client's TERM, asked
// in a Cmd.
type passthroughMsg struct {
	on        bool
	outerTerm string
}

// NewDetector starts a detection for the images setting; getenv reads
// the environment (TMUX).
func NewDetector(mode string, getenv func(string) string) *Detector {
	return &Detector{mode: mode, inTmx: getenv("TMUX") != ""}
}

// Start is the first step: under tmux, ask tmux; else ask the terminal.
// With the setting off or blocks it asks nothing.
func (d *Detector) Start() tea.Cmd {
	switch {
	case d.mode == "off" || d.mode == "blocks":
		d.done = true
		return nil
	case d.inTmx:
		return askTmuxPassthrough
	}
	return d.query()
}

// askTmuxPassthrough runs `tmux show -gv allow-passthrough`: I/O, so a
// Cmd.
func askTmuxPassthrough() tea.Msg {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "tmux", "show", "-gv", "allow-passthrough").Output()
	v := strings.TrimSpace(string(out))
	msg := passthroughMsg{on: err == nil && (v == "on" || v == "all")}
	if term, err := exec.CommandContext(ctx, "tmux", "display", "-p", "#{client_termname}").Output(); err == nil {
		msg.outerTerm = strings.TrimSpace(string(term))
	}
	return msg
}

// kittyTerms are the TERMs of terminals that draw kitty images: tmux
// answers the kitty query itself (it does not know it), so under tmux its
// client's TERM is the hint.
var kittyTerms = map[string]bool{"xterm-kitty": true, "xterm-ghostty": true}

func (d *Detector) query() tea.Cmd {
	q := KittyQuery
	if d.inTmx {
		q = ansi.TmuxPassthrough(q)
	}
	return tea.Batch(tea.Raw(q+ansi.RequestPrimaryDeviceAttributes), tea.RequestTerminalVersion)
}

// Update takes a message that may answer the detection; done says the
// answer is complete (then Protocol and Tmux say what to use).
func (d *Detector) Update(msg tea.Msg) (cmd tea.Cmd, done bool) {
	if d.done {
		return nil, false
	}
	switch msg := msg.(type) {
	case passthroughMsg:
		d.passthrough, d.outerTerm = msg.on, msg.outerTerm
		if !msg.on {
			d.done = true
			return nil, true
		}
		return d.query(), false
	case uv.KittyGraphicsEvent:
		if msg.Options.ID == 31 && strings.HasPrefix(string(msg.Payload), "OK") {
			d.kitty = true
		}
	case tea.TerminalVersionMsg:
		d.version = msg.Name
	case uv.PrimaryDeviceAttributesEvent:
		d.sixel = slices.Contains([]int(msg), 4)
		d.done = true
		return nil, true
	}
	return nil, false
}

// Protocol is the protocol the answers (and the setting) call for: kitty
// where the terminal said so (or the setting forces it), else half-blocks;
// under a tmux that passes nothing through, half-blocks.
func (d *Detector) Protocol() Protocol {
	switch {
	case d.mode == "off":
		return Off
	case d.mode == "blocks", d.inTmx && !d.passthrough:
		return Blocks
	case d.mode == "kitty", d.kitty, d.inTmx && kittyTerms[d.outerTerm]:
		return Kitty
	}
	return Blocks
}

// Tmux says kitty sequences must go through tmux's passthrough.
func (d *Detector) Tmux() bool { return d.inTmx && d.passthrough }

// Summary says what was found, for the debug log.
func (d *Detector) Summary() string {
	return fmt.Sprintf("images: %s (setting %s; kitty answered %v, sixel %v, tmux %v, passthrough %v, tmux client's TERM %q, terminal %q)",
		d.Protocol(), d.mode, d.kitty, d.sixel, d.inTmx, d.passthrough, d.outerTerm, d.version)
}
