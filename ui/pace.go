package ui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// displayPace is how often the screen can change: Bubble Tea's renderer
// writes the last View it was given 60 times a second (its default FPS), so
// a frame built more often than that is never seen.
const displayPace = time.Second / 60

// floodPace is the pace while events come in full batches (a flood: the
// stream held more than floodBatchSize events when the UI took them). Fifteen
// frames a second still scroll the log smoothly, and the frames not built
// leave the UI goroutine the time to take the events as fast as they
// come: fewer of them wait in the queues, which hold a flood's frames as
// whole *mcp.Frame values, so a flood's peak memory is lower
// (.ci/flood-tui.sh measures it; docs/performance.md has the figures).
const floodPace = time.Second / 15

// floodBatchSize is the batch size from which a flood is on.
const floodBatchSize = maxBatch / 4

// frameMsg comes back displayPace after a batch of events whose frame was
// not built: the frame is built then, so the last batch of a flood is on
// screen at most one pace after it arrived.
type frameMsg struct{}

// Paced is the root model as a tea.Program runs it: Bubble Tea calls View
// after every message, and during a flood a message is a batch of events,
// dozens of them a second. Paced builds a frame for an event batch only
// when the last one is at least displayPace old, and otherwise keeps the
// last frame and asks for a frameMsg that builds it in time. Every other
// message (a key, the mouse, a resize, a result) gets its frame at once,
// so input is answered on the next screen refresh as before.
//
// Model.View stays a plain function of the model (the tests call it after
// every step); only the program's wrapper paces.
type Paced struct {
	m *Model
	// now is the clock (tests move it by hand).
	now func() time.Time
	// last is the frame built at built; stale says the model changed since.
	last    tea.View
	built   time.Time
	have    bool
	stale   bool
	urgent  bool // build on the next View, whatever the pace
	waiting bool // a frameMsg is on its way
	flood   bool // the last event batch was a flood's (floodPace)
	// builds counts the frames built (BenchmarkFloodThroughUI).
	builds int
}

// Paced wraps m for tea.NewProgram.
func (m *Model) Paced() *Paced { return &Paced{m: m, now: time.Now} }

// Init is the model's Init.
func (p *Paced) Init() tea.Cmd { return p.m.Init() }

// Update hands msg to the model and decides whether the next View builds a
// frame now or waits for the pace.
func (p *Paced) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(frameMsg); ok {
		p.waiting = false
		if !p.stale {
			return p, nil
		}
		if wait := p.pace() - p.now().Sub(p.built); wait > 0 {
			return p, p.frameAfter(wait)
		}
		p.urgent = true
		// The frame built now may move an iTerm2 or sixel image.
		return p, p.m.armPlacement()
	}
	if _, ok := msg.(placeTickMsg); ok {
		// Drawing images changes no cell: no frame to build.
		_, cmd := p.m.Update(msg)
		return p, cmd
	}
	_, cmd := p.m.Update(msg)
	p.stale = true
	events, ok := msg.(eventsMsg)
	if !ok {
		p.urgent = true
		return p, cmd
	}
	p.flood = len(events.events) >= floodBatchSize
	if wait := p.pace() - p.now().Sub(p.built); wait > 0 && p.have && !p.urgent {
		cmd = tea.Batch(cmd, p.frameAfter(wait))
	}
	return p, cmd
}

// pace is how long an event batch's frame waits after the last frame.
func (p *Paced) pace() time.Duration {
	if p.flood {
		return floodPace
	}
	return displayPace
}

// frameAfter asks for a frameMsg after wait, unless one is on its way.
func (p *Paced) frameAfter(wait time.Duration) tea.Cmd {
	if p.waiting {
		return nil
	}
	p.waiting = true
	return tea.Tick(wait, func(time.Time) tea.Msg { return frameMsg{} })
}

// View is the model's frame: built afresh when something other than events
// changed it, or when the last one is a pace old; else the last one.
func (p *Paced) View() tea.View {
	now := p.now()
	if p.have && !p.urgent && (!p.stale || now.Sub(p.built) < p.pace()) {
		return p.last
	}
	p.last, p.built, p.have = p.m.View(), now, true
	p.stale, p.urgent = false, false
	p.builds++
	return p.last
}

// Model is the wrapped model.
func (p *Paced) Model() *Model { return p.m }

var _ tea.Model = (*Paced)(nil)
