package ui

import (
	"fmt"
	"image"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/redact"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/session"
	"github.com/mcpscope/mcpscope/panes"
)

// View composes header, panes, status and help bar, and the overlay.
func (m *Model) View() tea.View {
	// Cells reserved for iTerm2 and sixel images are found in the frame
	// (images.go draws the images once it is on the terminal).
	v := tea.NewView(m.screen.Place(m.render(), m.placeNow()))
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "mcpscope · " + termsafe.String(m.serverName())
	return v
}

// sideBySide puts left beside the right column (the blocks of right stacked),
// as lipgloss.JoinHorizontal(Top, left, JoinVertical(Left, right...)) does,
// without measuring every line: each pane is drawn to exactly its width
// (box.Draw, panes.Fit), so when the heights agree and the right blocks
// share a width the join is plain concatenation. Measuring every line of a
// frame twice was over half of View's time during a flood. Anything else
// goes to lipgloss.
func sideBySide(left string, right ...string) string {
	w := -1
	for _, blk := range right {
		first, _, _ := strings.Cut(blk, "\n")
		bw := ansi.StringWidth(first)
		if w >= 0 && bw != w {
			return lipgloss.JoinHorizontal(lipgloss.Top, left, lipgloss.JoinVertical(lipgloss.Left, right...))
		}
		w = bw
	}
	leftLines := strings.Split(left, "\n")
	rightLines := make([]string, 0, len(leftLines))
	for _, blk := range right {
		rightLines = append(rightLines, strings.Split(blk, "\n")...)
	}
	if len(rightLines) != len(leftLines) {
		return lipgloss.JoinHorizontal(lipgloss.Top, left, lipgloss.JoinVertical(lipgloss.Left, right...))
	}
	var b strings.Builder
	b.Grow(len(left) + len(rightLines)*(w+1) + 64)
	for i, l := range leftLines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
		b.WriteString(rightLines[i])
	}
	return b.String()
}

func (m *Model) render() string {
	if m.w <= 0 || m.h <= 0 {
		return ""
	}
	l := m.layout
	rows := make([]string, 0, 6)
	rows = append(rows, m.renderHeader())
	if l.tabbed {
		rows = append(rows, m.renderTabs())
	}
	if top := m.topLayer(); top != "" {
		rows = append(rows, composeBody(top, l.body, l.modal))
	} else if l.tabbed {
		rows = append(rows, m.pane(m.focus).View())
	} else {
		rows = append(rows, sideBySide(m.logPane.View(), m.caps.View(), m.renderSlotTabs(), m.pane(m.explorer).View()))
	}
	rows = append(rows, m.renderStatus())
	rows = append(rows, m.renderHelp(m.layout.help.Dy())...)
	return strings.Join(rows, "\n")
}

// topLayer is the view of the overlay on top of the stack, or "" when the
// panes show. The stack, bottom to top: the tools pane's arguments form
// (drawn in the modal rectangle for room), then a modal (detail, result,
// handshake, content, a server's ask, help). Every layer blanks the whole
// body under it, so only the top one is seen and nothing of what lies
// below leaks at its edges; the panes behind are not even drawn.
func (m *Model) topLayer() string {
	switch {
	case m.modal == modalHelp:
		return m.renderFullHelp()
	case m.modalPane() != nil:
		return m.modalPane().View()
	case m.toolsWide && m.formPane() != nil:
		return m.formPane().View()
	}
	return ""
}

// composeBody places an overlay's lines in the modal rectangle of an
// otherwise blank body: exactly body.Dx() × body.Dy() cells. An overlay
// shorter than the rectangle (the help) is centred in it; anything longer
// or wider is cut, so the rows outside the body are never touched.
func composeBody(top string, body, modal image.Rectangle) string {
	w, h := body.Dx(), body.Dy()
	if h <= 0 {
		return ""
	}
	lines := strings.Split(top, "\n")
	if len(lines) > modal.Dy() {
		lines = lines[:modal.Dy()]
	}
	first := modal.Min.Y - body.Min.Y + (modal.Dy()-len(lines))/2
	left := strings.Repeat(" ", max(modal.Min.X-body.Min.X, 0))
	right := strings.Repeat(" ", max(body.Max.X-modal.Max.X, 0))
	blankLine := strings.Repeat(" ", w)
	out := make([]string, h)
	for i := range out {
		j := i - first
		if j < 0 || j >= len(lines) {
			out[i] = blankLine
			continue
		}
		out[i] = left + panes.Fit(lines[j], modal.Dx()) + right
	}
	return strings.Join(out, "\n")
}

func (m *Model) serverName() string {
	if hs, _ := m.viewedHandshake(); hs != nil && hs.ServerInfo.Name != "" {
		return hs.ServerInfo.Name
	}
	return redact.Command(m.cfg.Target)
}

// renderHeader is one line: server name and version, transport, era,
// protocol version, connection state and handshake time. Narrow, the labels
// go, then the name is cut, then the handshake time, protocol, era and
// transport give way: the connection state always shows whole.
func (m *Model) renderHeader() string {
	h := m.theme.Header
	// A part's drop is the order it gives way in when the name alone cannot
	// make room (1 first); 0 never goes.
	type part struct {
		text string
		drop int
	}
	name := h.Name.Render("mcpscope") + " " + h.Value.Render(termsafe.String(m.serverName()))
	var parts []part
	hs, viewed := m.viewedHandshake()
	if hs != nil {
		if v := hs.ServerInfo.Version; v != "" {
			name += " " + h.Label.Render(termsafe.String(v))
		}
		parts = append(parts,
			part{h.Label.Render("era ") + h.Value.Render(hs.Era.String()), 3},
			part{h.Label.Render("protocol ") + h.Value.Render(termsafe.String(hs.ProtocolVersion)), 2})
	}
	if m.src != nil {
		transport := m.src.TransportName()
		if n, ok := m.src.(clientSessionNamer); ok && viewed != 0 {
			transport = n.TransportNameOf(viewed)
		}
		parts = append(parts, part{h.Value.Render(transport), 4})
	}
	parts = append(parts, part{m.stateBadge(), 0})
	if c := m.diagCounts(); c != "" {
		parts = append(parts, part{m.theme.Status.Error.Render(c), 0})
	}
	if b := m.breakingBadge(); b != "" {
		parts = append(parts, part{b, 0})
	}
	if hs != nil {
		parts = append(parts, part{h.Label.Render("handshake ") + h.Value.Render(hs.Duration.Round(time.Millisecond).String()), 1})
	}
	join := func(sep string) string {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(sep)
			b.WriteString(p.text)
		}
		return b.String()
	}
	sep := h.Label.Render(" · ")
	if line := " " + name + join(sep); ansi.StringWidth(line) <= m.w {
		return h.Bar.Render(panes.Fit(line, m.w))
	}
	// Narrow: drop the separators' spaces and the labels' words.
	short := strings.NewReplacer("era ", "", "protocol ", "", "handshake ", "⏱",
		" errors", "E", " error", "E", " warnings", "W", " warning", "W", " hints", "H", " hint", "H",
		" breaking changes", " breaking", " breaking change", " breaking")
	for i := range parts {
		parts[i].text = short.Replace(parts[i].text)
	}
	sep = h.Label.Render("·")
	// The name keeps this many columns before anything else gives way.
	const nameKeeps = 24
	for drop := 1; drop <= 4; drop++ {
		if m.w-1-ansi.StringWidth(join(sep)) >= min(ansi.StringWidth(name), nameKeeps) {
			break
		}
		for i, p := range parts {
			if p.drop == drop {
				parts = append(parts[:i], parts[i+1:]...)
				break
			}
		}
	}
	rest := join(sep)
	room := max(m.w-1-ansi.StringWidth(rest), 1)
	return h.Bar.Render(panes.Fit(" "+ansi.Truncate(name, room, "…")+rest, m.w))
}

// clientSessionNamer is a source carrying several client sessions (a
// tap --listen's capture) that can name each one.
type clientSessionNamer interface {
	TransportNameOf(clientSession int) string
}

// viewedHandshake is the handshake the header describes: the client
// session's the log is looking at, in a capture that numbers them
// (Log.ViewedSession), else the latest. viewed is that session, 0 when
// the latest is described.
func (m *Model) viewedHandshake() (hs *mcp.Handshake, viewed int) {
	if n := m.logPane.ViewedSession(); n != 0 {
		if hs, ok := m.sessionHandshakes[n]; ok {
			return hs, n
		}
		return m.handshake, n
	}
	return m.handshake, 0
}

func (m *Model) stateBadge() string {
	h := m.theme.Header
	if r, ok := m.src.(session.Recording); ok && r.Recorded() {
		// What the recorded connection ended in is history (the log and
		// the status line keep it): the view itself is a recording.
		return h.Pending.Render("◆ recording · read-only")
	}
	switch m.state {
	case mcp.StateReady:
		return h.Ready.Render("● ready")
	case mcp.StateFailed:
		return h.Failed.Render("■ failed")
	case mcp.StateClosed:
		return h.Failed.Render("■ closed")
	case mcp.StateLost:
		return h.Failed.Render("■ lost")
	case 0:
		if m.cfg.NewSource == nil {
			return h.Pending.Render("○ no server")
		}
		return h.Pending.Render("○ starting")
	}
	return h.Pending.Render("◌ " + m.state.String())
}

// tabTitles are the tab row's labels, in focus order: the short ones when
// the long ones do not fit (nine tabs in 80 columns).
func (m *Model) tabTitles() []string {
	long := []string{"Log", "Caps", "Tools", "Res", "Prompts", "Logs", "Activity", "Roots", "Diag"}
	if titlesWidth(long, 5) <= m.w {
		return long
	}
	return []string{"Log", "Caps", "Tools", "Res", "Prom", "Logs", "Act", "Root", "Diag"}
}

// tabLabels are the tab row's labels: " 1 Log " padded while they fit,
// else "1 Log" one cell apart, so all nine tabs stay on screen at 60
// columns (the padded row ended at "7 Act…" there).
func (m *Model) tabLabels() []string {
	titles := m.tabTitles()
	padded := titlesWidth(titles, 5) <= m.w
	out := make([]string, len(titles))
	for i, t := range titles {
		out[i] = fmt.Sprintf("%d %s", i+1, t)
		if padded {
			out[i] = " " + out[i] + " "
		}
	}
	return out
}

// slotTitles label the wide layout's explorer slot tabs.
func (m *Model) slotTitles() []string {
	long := []string{"Tools", "Res", "Prompts", "Logs", "Activity", "Roots", "Diag"}
	if titlesWidth(long, 3)+3 <= m.layout.slotTabs.Dx() {
		return long
	}
	return []string{"Tools", "Res", "Prom", "Logs", "Act", "Root", "Diag"}
}

// titlesWidth is the width of a tab row: the titles plus pad cells each.
func titlesWidth(titles []string, pad int) int {
	w := 0
	for _, t := range titles {
		w += len(t) + pad
	}
	return w
}

// renderSlotTabs is the tab row over the explorer slot (wide layout).
func (m *Model) renderSlotTabs() string {
	var b strings.Builder
	for i, t := range m.slotTitles() {
		f := firstExplorer + focus(i)
		label := fmt.Sprintf("%d %s", int(f)+1, t)
		if f == focusActivity && m.activity.Running() != nil {
			label += " ⟳"
		}
		if f == m.explorer {
			b.WriteString(m.theme.Tabs.Active.Render(label))
		} else {
			b.WriteString(m.theme.Tabs.Inactive.Render(label))
		}
		b.WriteString(" ")
	}
	return panes.Fit(" "+b.String(), m.layout.slotTabs.Dx())
}

// slotTabAt is the explorer tab under column x of the slot's tab row.
func (m *Model) slotTabAt(x int) (focus, bool) {
	pos := m.layout.slotTabs.Min.X + 1
	for i, t := range m.slotTitles() {
		f := firstExplorer + focus(i)
		w := ansi.StringWidth(fmt.Sprintf("%d %s", int(f)+1, t))
		if f == focusActivity && m.activity.Running() != nil {
			w += 2
		}
		if x >= pos && x < pos+w {
			return f, true
		}
		pos += w + 1
	}
	return 0, false
}

func (m *Model) renderTabs() string {
	var b strings.Builder
	for i, label := range m.tabLabels() {
		if i > 0 {
			b.WriteString(" ")
		}
		if focus(i) == m.focus {
			b.WriteString(m.theme.Tabs.Active.Render(label))
		} else {
			b.WriteString(m.theme.Tabs.Inactive.Render(label))
		}
	}
	return panes.Fit(b.String(), m.w)
}

// tabAt is the tab under column x of the tab row.
func (m *Model) tabAt(x int) (focus, bool) {
	pos := 0
	for i, label := range m.tabLabels() {
		w := ansi.StringWidth(label)
		if x >= pos && x < pos+w {
			return focus(i), true
		}
		pos += w + 1
	}
	return 0, false
}

// wayOut is the status line's hint after an end: r, or the live-session
// key where r is not offered (an ended recording), or nothing.
func (m *Model) wayOut(r string) string {
	switch {
	case !m.cfg.NoReconnect && m.cfg.ReconnectHelp != "":
		return "  (" + m.keys.Global.Reconnect.Help().Key + ": " + m.cfg.ReconnectHelp + ")"
	case !m.cfg.NoReconnect:
		return r
	case m.cfg.LiveSession != nil:
		return "  (" + m.keys.Global.LiveSession.Help().Key + " for a live session)"
	}
	return ""
}

// renderStatus says how the connection is: the state's detail, the last
// error, or how the server ended with its last stderr line.
func (m *Model) renderStatus() string {
	s := m.theme.Status
	var line string
	switch {
	case m.reconnecting:
		line = s.Info.Render("reconnecting: stopping the server…")
	case m.note != "" && m.noteOverExit && m.toolStatus == "":
		st := s.Error
		if m.noteOK {
			st = s.OK
		}
		line = st.Render(termsafe.String(m.note))
	case m.doc.err != nil:
		cause, fix, _ := m.doctorLine()
		// The cause gets at most 60% of the row so the fix shows too; the
		// log holds both in full.
		cause = ansi.Truncate("✗ "+termsafe.String(cause), max(m.w*60/100, 20), "…")
		line = s.Error.Render(cause) + s.Info.Render(m.wayOut("  (r to restart)")+"  fix: "+termsafe.String(fix))
	case m.exit != nil:
		line = s.Error.Render(panes.ExitSummary(m.exit)) + s.Info.Render(m.wayOut("  (r to restart)"))
	case m.state == mcp.StateFailed:
		// Cut to leave room for the way out (a closed HTTP+SSE stream's
		// cause is long); the log has it whole.
		line = s.Error.Render(ansi.Truncate(termsafe.String(m.stateDetail), max(m.w-20, 20), "…")) + s.Info.Render(m.wayOut("  (r to restart)"))
	case m.state == mcp.StateLost:
		// The cause is cut to leave room for the way out; the log has it whole.
		line = s.Error.Render(ansi.Truncate("✗ "+termsafe.String(m.stateDetail), max(m.w-20, 20), "…")) + s.Info.Render(m.wayOut("  (r to reconnect)"))
	case m.activity.Running() != nil:
		o := m.activity.Running()
		line = m.activity.OpLine(o, m.w-20) + s.Info.Render("  X cancels")
	case m.note != "" && m.toolStatus == "":
		st := s.OK
		if !m.noteOK {
			st = s.Error
		}
		line = st.Render(termsafe.String(m.note))
	case m.toolStatus != "" && m.toolOK:
		line = s.OK.Render(termsafe.String(m.toolStatus))
	case m.toolStatus != "":
		line = s.Error.Render(termsafe.String(m.toolStatus))
	case m.lastError != "":
		line = s.Error.Render(termsafe.String(m.lastError))
	case m.stateDetail != "":
		line = s.Info.Render(termsafe.String(m.stateDetail))
	case m.cfg.Target != "":
		line = s.Info.Render(termsafe.String(redact.Command(m.cfg.Target)))
	}
	return panes.Fit(" "+line, m.w)
}

// renderFullHelp is the "?" overlay: one key a row, the focused pane's
// groups then the global keys, in a list that scrolls (panes/list) when
// the overlay cannot hold them all, with its position in the title.
func (m *Model) renderFullHelp() string {
	w, h := m.layout.modal.Dx(), m.layout.modal.Dy()
	m.helpLines = m.fullHelpLines()
	head := []string{"", m.theme.Detail.Hint.Render(" the " + m.focus.String() + " pane, then global keys; ? or esc closes"), ""}
	if h-2-len(head) < len(m.helpLines) {
		head = head[1:2] // no room to spare: the blank rows go first
	}
	rows := max(min(h-2-len(head), len(m.helpLines)), 0)
	m.helpList.SetSize(max(w-3, 0), rows)
	m.helpList.SetLen(len(m.helpLines))
	body := head
	for _, l := range m.helpList.Render() {
		body = append(body, " "+l)
	}
	title := "Help"
	if p := m.helpList.Position(); p != "" {
		title = panes.TitleKeeping(title, " · "+p, w)
	}
	return panes.Box(m.theme, title, true, w, min(h, len(body)+2), body)
}

// fullHelpLines lays the full help out one binding a row, the keys in a
// column, a blank row between groups.
func (m *Model) fullHelpLines() []string {
	st := m.theme.Help
	groups := m.FullHelp()
	keyW := 0
	for _, g := range groups {
		for _, b := range g {
			keyW = max(keyW, ansi.StringWidth(b.Help().Key))
		}
	}
	out := m.tabLegend(max(m.layout.modal.Dx()-3, 20))
	for _, g := range groups {
		if len(out) > 0 {
			out = append(out, "")
		}
		for _, b := range g {
			if !b.Enabled() {
				continue
			}
			k := b.Help().Key
			out = append(out, st.FullKey.Render(k+strings.Repeat(" ", keyW-ansi.StringWidth(k)))+"  "+st.FullDesc.Render(b.Help().Desc))
		}
	}
	// The short forms the header and the panes use, said once in words.
	out = append(out, "", st.FullDesc.Render("what the short forms mean:"))
	legend := [][2]string{
		{"1E 2W 3H", "the doctor's errors, warnings, hints (9)"},
		{"⏱12ms", "how long the handshake took"},
		{"legacy", "the protocol era (modern: 2026-07-28)"},
		{"RO", "a tool's readOnlyHint: it changes nothing"},
		{"IDEM", "idempotentHint: calling twice does no more"},
		{"OPEN", "openWorldHint: it reaches outside systems"},
		{"DEST", "destructiveHint: it may delete or overwrite"},
		{"W  ERR", "in the log: flagged by the doctor; an error"},
		{"✎ draft", "a form closed with keep draft"},
	}
	w := 0
	for _, l := range legend {
		w = max(w, ansi.StringWidth(l[0]))
	}
	for _, l := range legend {
		out = append(out, st.FullKey.Render(l[0]+strings.Repeat(" ", w-ansi.StringWidth(l[0])))+"  "+st.FullDesc.Render(l[1]))
	}
	return out
}

// tabLegend says what the tab row's short names stand for, first in the
// full help where it is seen without scrolling: below 120 columns the tabs
// are short ("Prom", "Act", "Diag"), and the pane's own title is seen only
// once it is open. It is folded to w columns.
func (m *Model) tabLegend(w int) []string {
	st := m.theme.Help
	titles := m.tabTitles()
	if !m.layout.tabbed {
		titles = append([]string{"Log", "Caps"}, m.slotTitles()...)
	}
	var entries []string
	for i, t := range titles {
		name := focus(i).String()
		if strings.EqualFold(t, name) {
			continue
		}
		entries = append(entries, st.FullKey.Render(fmt.Sprintf("%d %s", i+1, t))+" "+st.FullDesc.Render(name))
	}
	if len(entries) == 0 {
		return nil
	}
	// Entries are packed whole into rows: a break inside one ("5" at the
	// end of a row, "Prom prompts" on the next) reads as two tabs.
	lines := []string{st.FullDesc.Render("the tabs:")}
	sep := st.FullDesc.Render(" · ")
	row := ""
	for _, e := range entries {
		switch {
		case row == "":
			row = e
		case ansi.StringWidth(row+sep+e) <= w:
			row += sep + e
		default:
			lines = append(lines, row)
			row = e
		}
	}
	return append(lines, row)
}

// helpBindings are the enabled bindings of the help bar.
func (m *Model) helpBindings() []key.Binding {
	var bindings []key.Binding
	for _, b := range m.ShortHelp() {
		if b.Enabled() {
			bindings = append(bindings, b)
		}
	}
	return bindings
}

// helpCache keeps the help bar's layout between frames: the bar is the same
// on every frame of a flood, and laying it out measures each prefix of the
// bindings (a profile of a flood gave it a quarter of View). key names the
// enabled bindings; the cache is dropped when the theme changes.
type helpCache struct {
	key        string
	w, h       int
	rows       int      // helpRows for key, w, h
	n          int      // the row count lines were laid out for
	lines      []string // renderHelp(n) for key, w
	haveRows   bool
	haveLinesN bool
}

// helpBarKey names the bindings the help bar shows: their keys and help.
func helpBarKey(bindings []key.Binding) string {
	var b strings.Builder
	for _, kb := range bindings {
		h := kb.Help()
		b.WriteString(h.Key)
		b.WriteByte(0)
		b.WriteString(h.Desc)
		b.WriteByte(0)
	}
	return b.String()
}

// helpBarFor returns the cache for the current bindings and size, emptied
// if either changed.
func (m *Model) helpBarFor(bindings []key.Binding) *helpCache {
	k := helpBarKey(bindings)
	if c := &m.helpBar; c.key != k || c.w != m.w || c.h != m.h {
		*c = helpCache{key: k, w: m.w, h: m.h}
	}
	return &m.helpBar
}

// helpRows is how many rows the help bar needs at the current width, so
// that every key is shown (a form has many keys: four rows at 80 columns).
// Where ? opens the full help and the keys would take more than a sixth of
// the screen (60×15), the bar folds to one row that ends in "? help": the
// panes keep their rows and ? lists the rest. Elsewhere it is capped at a
// third of the screen so a tiny terminal keeps a body; only then is the
// last row cut.
func (m *Model) helpRows() int {
	bindings := m.helpBindings()
	c := m.helpBarFor(bindings)
	if !c.haveRows {
		c.rows, c.haveRows = m.layoutHelpRows(bindings), true
	}
	return c.rows
}

func (m *Model) layoutHelpRows(bindings []key.Binding) int {
	hm := m.help
	hm.SetWidth(0)
	rows, start := 1, 0
	for end := 1; end <= len(bindings); end++ {
		if ansi.StringWidth(hm.ShortHelpView(bindings[start:end])) > m.w && end-1 > start {
			rows++
			start = end - 1
		}
	}
	if _, ok := m.helpFold(bindings); ok && rows > max(m.h/6, 1) {
		return 1
	}
	return min(rows, max(m.h/3, 1))
}

// helpFold is where the help bar's tail starts ("? help" and what follows
// it) when the bar may fold to one row: only where ? opens the full help,
// which is not the case over a modal or in a pane that takes typing.
func (m *Model) helpFold(bindings []key.Binding) (int, bool) {
	if m.modal != modalNone {
		return 0, false
	}
	help := m.keys.Global.Help.Help()
	for i, b := range bindings {
		if h := b.Help(); h == help {
			return i, true
		}
	}
	return 0, false
}

// layoutFolded is the help bar on one row: as many of the first bindings as
// fit, then "? help" and what follows it, which always show.
func (m *Model) layoutFolded(bindings []key.Binding, tail int) string {
	hm := m.help
	hm.SetWidth(0)
	shown := append([]key.Binding(nil), bindings[tail:]...)
	for n := 1; n <= tail; n++ {
		try := append(append([]key.Binding(nil), bindings[:n]...), bindings[tail:]...)
		if ansi.StringWidth(hm.ShortHelpView(try)) > m.w {
			break
		}
		shown = try
	}
	return panes.Fit(hm.ShortHelpView(shown), m.w)
}

// renderHelp lays the short help out on up to n rows, breaking between
// bindings, so that narrow screens still show every key.
func (m *Model) renderHelp(n int) []string {
	bindings := m.helpBindings()
	c := m.helpBarFor(bindings)
	if !c.haveLinesN || c.n != n {
		c.lines, c.n, c.haveLinesN = m.layoutHelp(bindings, n), n, true
	}
	return c.lines
}

func (m *Model) layoutHelp(bindings []key.Binding, n int) []string {
	hm := m.help
	hm.SetWidth(0)
	if tail, ok := m.helpFold(bindings); ok && n == 1 && ansi.StringWidth(hm.ShortHelpView(bindings)) > m.w {
		return []string{m.layoutFolded(bindings, tail)}
	}
	lines := make([]string, 0, n)
	start := 0
	for row := 0; row < n; row++ {
		end := start
		for end < len(bindings) && (end == start || row == n-1 ||
			ansi.StringWidth(hm.ShortHelpView(bindings[start:end+1])) <= m.w) {
			end++
		}
		lines = append(lines, panes.Fit(hm.ShortHelpView(bindings[start:end]), m.w))
		start = end
	}
	return lines
}
