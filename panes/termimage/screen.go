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
	// ITerm2 draws the image with iTerm2's inline-image sequence over
	// blank cells the view reserves (iTerm2, WezTerm): see Place.
	ITerm2
	// Sixel draws the image as sixel graphics over blank cells the view
	// reserves (foot, Windows Terminal, xterm -ti vt340, tmux built with
	// sixel): see Place.
	Sixel
)

func (p Protocol) String() string {
	switch p {
	case Blocks:
		return "blocks"
	case Kitty:
		return "kitty"
	case ITerm2:
		return "iterm2"
	case Sixel:
		return "sixel"
	}
	return "off"
}

// Pixels says the protocol paints pixels at the cursor rather than through
// cells: the root draws its images after the frame (Place, Draw).
func (p Protocol) Pixels() bool { return p == ITerm2 || p == Sixel }

// Modes are the values of the images setting, "auto" first.
var Modes = []string{"auto", "kitty", "iterm2", "sixel", "blocks", "off"}

// ParseMode reads the images setting (--images): auto, kitty, iterm2,
// sixel, blocks or off.
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
	// cellW, cellH are the terminal's cell in pixels (asked; CellWidth ×
	// CellHeight until it answers): sixel is drawn in pixels.
	cellW, cellH int
	pixels       pixelState
}

// NewScreen makes a Screen that draws with p until told otherwise.
func NewScreen(p Protocol) *Screen {
	return &Screen{Cache: NewCache(DefaultCacheBytes), protocol: p, nextID: firstID, live: map[int]bool{},
		cellW: CellWidth, cellH: CellHeight}
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
	if p != s.protocol {
		s.pixels.clear()
	}
	s.protocol, s.tmux = p, tmux
}

// SetCellSize is the terminal's cell in pixels, as it answered; nonsense
// is ignored.
func (s *Screen) SetCellSize(w, h int) {
	if w < 2 || h < 2 || w > 256 || h > 512 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cellW, s.cellH = w, h
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
	mode  string // auto, kitty, iterm2, sixel, blocks, off
	inTmx bool   // TMUX is set
	// passthrough is tmux's allow-passthrough: on, all, or what else.
	passthrough bool
	// outerTerm is the TERM of the terminal tmux's client runs in, a
	// hint where tmux keeps the terminal's answer to itself.
	outerTerm string
	// outerType is tmux's name for the terminal its client runs in (from
	// that terminal's XTVERSION answer, tmux 3.3 and later).
	outerType string
	// termProgram is TERM_PROGRAM, which iTerm2 and WezTerm set.
	termProgram  string
	kitty        bool
	sixel        bool
	done         bool
	version      string
	cellW, cellH int
}

// passthroughMsg is tmux's allow-passthrough and its client's TERM, asked
// in a Cmd.
type passthroughMsg struct {
	on        bool
	outerTerm string
	outerType string
}

// NewDetector starts a detection for the images setting; getenv reads
// the environment (TMUX).
func NewDetector(mode string, getenv func(string) string) *Detector {
	return &Detector{mode: mode, inTmx: getenv("TMUX") != "", termProgram: getenv("TERM_PROGRAM")}
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
	if term, err := exec.CommandContext(ctx, "tmux", "display", "-p", "#{client_termname}\t#{client_termtype}").Output(); err == nil {
		msg.outerTerm, msg.outerType, _ = strings.Cut(strings.TrimSpace(string(term)), "\t")
	}
	return msg
}

// kittyTerms are the TERMs of terminals that draw kitty images: tmux
// answers the kitty query itself (it does not know it), so under tmux its
// client's TERM is the hint.
var kittyTerms = map[string]bool{"xterm-kitty": true, "xterm-ghostty": true}

// iTerm2Names start the XTVERSION answers (and TERM_PROGRAMs) of terminals
// that draw iTerm2's inline images.
var iTerm2Names = []string{"iTerm2", "iTerm.app", "WezTerm"}

func isITerm2(name string) bool {
	for _, n := range iTerm2Names {
		if strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

func (d *Detector) query() tea.Cmd {
	q := KittyQuery
	if d.inTmx {
		q = ansi.TmuxPassthrough(q)
	}
	// The cell size (XTWINOPS 16) before DA1, whose answer ends the wait.
	return tea.Batch(tea.Raw(q+ansi.WindowOp(16)+ansi.RequestPrimaryDeviceAttributes), tea.RequestTerminalVersion)
}

// Update takes a message that may answer the detection; done says the
// answer is complete (then Protocol and Tmux say what to use).
func (d *Detector) Update(msg tea.Msg) (cmd tea.Cmd, done bool) {
	if d.done {
		return nil, false
	}
	switch msg := msg.(type) {
	case passthroughMsg:
		// Without passthrough the terminal is still asked: tmux answers
		// DA1 itself, with sixel when it draws sixel.
		d.passthrough, d.outerTerm, d.outerType = msg.on, msg.outerTerm, msg.outerType
		return d.query(), false
	case uv.CellSizeEvent:
		d.cellW, d.cellH = msg.Width, msg.Height
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

// Protocol is the protocol the answers (and the setting) call for, the
// first that works of kitty, iTerm2, sixel and half-blocks. Under tmux,
// kitty and iTerm2 need its passthrough (else half-blocks, even forced);
// sixel is never passed through: tmux's own DA1 says sixel when tmux
// draws it in its pane, where it belongs.
func (d *Detector) Protocol() Protocol {
	closed := d.inTmx && !d.passthrough
	switch d.mode {
	case "off":
		return Off
	case "blocks":
		return Blocks
	case "sixel":
		return Sixel
	case "kitty", "iterm2":
		if closed {
			return Blocks
		}
		if d.mode == "kitty" {
			return Kitty
		}
		return ITerm2
	}
	switch {
	case !closed && (d.kitty || d.inTmx && kittyTerms[d.outerTerm]):
		return Kitty
	case !closed && d.iterm2():
		return ITerm2
	case d.sixel:
		return Sixel
	}
	return Blocks
}

// iterm2 says the terminal draws iTerm2's inline images: by its XTVERSION
// answer or TERM_PROGRAM, or under tmux by tmux's name for its client's
// terminal (tmux answers XTVERSION itself).
func (d *Detector) iterm2() bool {
	if d.inTmx {
		return isITerm2(d.outerType)
	}
	return isITerm2(d.version) || isITerm2(d.termProgram)
}

// Tmux says kitty and iTerm2 sequences must go through tmux's
// passthrough.
func (d *Detector) Tmux() bool { return d.inTmx && d.passthrough }

// CellSize is the terminal's cell in pixels, or zeros if it did not say.
func (d *Detector) CellSize() (w, h int) { return d.cellW, d.cellH }

// Summary says what was found, for the debug log.
func (d *Detector) Summary() string {
	return fmt.Sprintf("images: %s (setting %s; kitty answered %v, sixel %v, tmux %v, passthrough %v, tmux client's TERM %q and type %q, terminal %q, TERM_PROGRAM %q, cell %dx%d px)",
		d.Protocol(), d.mode, d.kitty, d.sixel, d.inTmx, d.passthrough, d.outerTerm, d.outerType, d.version, d.termProgram, d.cellW, d.cellH)
}
