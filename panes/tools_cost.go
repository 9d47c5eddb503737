package panes

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor/clients"
	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// ToolViewsMsg carries the tool list as every client presents it, with
// what each tool costs, counted off the UI goroutine for list number Seq
// (SetTools numbers them: an older count is dropped).
type ToolViewsMsg struct {
	Seq   int
	Views map[clients.ID]clients.View
}

// costState is what the Tools pane knows of the tools' token costs and
// of the client views (tools_cost.go): counted once per list, in a Cmd.
type costState struct {
	seq       int
	views     map[clients.ID]clients.View
	firstSeen []mcp.Tool // the list as first seen this run: ChatGPT's cache
	sawFirst  bool
	server    string // the server's name as a client's configuration would have it
	title     string // its announced title (VS Code prefers it)
	// viewAs is the client the list is shown as (generic: the list as
	// served); picking is set while the picker line is open, on pick.
	viewAs  clients.ID
	picking bool
	pick    int
	// byCost lists the costliest tools first.
	byCost bool
	costW  int // the widest cost as drawn
}

// configName is a server's announced name as a client's configuration
// would take it: letters, digits, - and _ (claude mcp add refuses others).
var configNameRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]+`) })

// SetServer gives the server's announced name and title, which the
// clients' prefixes are made from.
func (p *Tools) SetServer(info mcp.Implementation) {
	name := strings.Trim(configNameRe().ReplaceAllString(info.Name, "-"), "-")
	if name == "" {
		name = "server"
	}
	p.cost.server, p.cost.title = name, info.Title
	if info.Title == "" {
		p.cost.title = info.Name
	}
}

// SetClient makes the client that is really connected (a tap's) the
// view the list starts in.
func (p *Tools) SetClient(id clients.ID) { p.cost.viewAs = id }

// ViewAs is the client the list is shown as.
func (p *Tools) ViewAs() clients.ID { return p.cost.viewAs }

// countCmd counts the list as every client presents it.
func (p *Tools) countCmd() tea.Cmd {
	p.cost.seq++
	seq := p.cost.seq
	in := clients.Input{Server: p.cost.server, ServerTitle: p.cost.title, Tools: p.tools}
	if p.cost.server == "" {
		in.Server = "server"
	}
	if p.cost.sawFirst {
		in.FirstSeen = p.cost.firstSeen
	} else {
		// The first list is ChatGPT's: it stays what its users get.
		p.cost.firstSeen, p.cost.sawFirst = p.tools, true
	}
	return func() tea.Msg {
		views := map[clients.ID]clients.View{}
		for _, id := range clients.All() {
			views[id] = clients.Present(id, in)
		}
		return ToolViewsMsg{Seq: seq, Views: views}
	}
}

// setViews takes a count; one for an older list is dropped.
func (p *Tools) setViews(msg ToolViewsMsg) {
	if msg.Seq != p.cost.seq {
		return
	}
	p.cost.views = msg.Views
	p.cost.costW = 0
	for _, v := range msg.Views {
		for _, e := range v.Tools {
			p.cost.costW = max(p.cost.costW, len(tokenCount(e.Tokens)))
		}
	}
	p.applyView()
}

// view is the current client's view, and whether it is counted yet.
func (p *Tools) view() (clients.View, bool) {
	v, ok := p.cost.views[p.viewID()]
	return v, ok
}

func (p *Tools) viewID() clients.ID {
	if p.cost.viewAs == "" {
		return clients.Generic
	}
	return p.cost.viewAs
}

// entry is tool i's entry in the current view.
func (p *Tools) entry(i int) (clients.Entry, bool) {
	v, ok := p.view()
	if !ok || i >= len(v.Tools) || v.Tools[i].Name != p.tools[i].Name {
		return clients.Entry{}, false
	}
	return v.Tools[i], true
}

// tokenCount is a count as the list and titles draw it: 987, 12.3k.
func tokenCount(n int) string {
	if n < 10000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%.1fk", float64(n)/1000)
}

// sortByCost orders shown the costliest first (the view's costs), when
// asked and counted.
func (p *Tools) sortByCost() {
	v, ok := p.view()
	if !p.cost.byCost || !ok {
		return
	}
	cost := func(i int) int {
		if i < len(v.Tools) {
			return v.Tools[i].Tokens
		}
		return 0
	}
	sort.SliceStable(p.shown, func(a, b int) bool { return cost(p.shown[a]) > cost(p.shown[b]) })
}

// costTitle is the title's tail: the view and what its list costs.
func (p *Tools) costTitle() string {
	v, ok := p.view()
	if len(p.tools) == 0 || !ok {
		return "" // counted in a moment (SetTools's Cmd)
	}
	s := " · " + tokenCount(v.Tokens) + " tok"
	if v.Stale > 0 {
		s += fmt.Sprintf(" · %d stale", v.Stale)
	}
	return s
}

// asTitle names the client the list is shown as, for the title.
func (p *Tools) asTitle() string {
	if p.viewID() == clients.Generic {
		return ""
	}
	return " as " + p.viewID().Name()
}

// costCell is a row's cost column: the mark of what the client does to
// the tool, then its cost, right-aligned in the column.
func (p *Tools) costCell(idx int) string {
	e, ok := p.entry(idx)
	if !ok {
		return ""
	}
	th := p.theme
	mark := " "
	switch {
	case e.Dropped != "":
		mark = th.Tools.BadgeDanger.Render("✗")
	case e.Stale != "":
		mark = th.Caps.Unknown.Render("⟲")
	}
	n := tokenCount(e.Tokens)
	return " " + mark + th.Tools.Title.Render(strings.Repeat(" ", max(p.cost.costW-len(n), 0))+n)
}

// costCellW is the cost column's width (0 before the count).
func (p *Tools) costCellW() int {
	if p.cost.views == nil {
		return 0
	}
	return 2 + p.cost.costW
}

// pickerLine is the line the client picker draws: each client, the one
// under the cursor marked. Where the line is wider than w, the clients
// before the marked one give way to "…" so that it stays in sight.
func (p *Tools) pickerLine(w int) string {
	th := p.theme
	prompt := th.Log.FilterPrompt.Render("view as ")
	var parts []string
	for i, id := range clients.All() {
		name := id.Name()
		if id == clients.Generic {
			name = "as served"
		}
		if i == p.cost.pick {
			parts = append(parts, th.Tools.Selected.Render("["+name+"]"))
		} else {
			parts = append(parts, th.Tools.Title.Render(" "+name+" "))
		}
	}
	upTo := func(n int) int { return ansi.StringWidth(prompt + strings.Join(parts[:n], "")) }
	first := 0
	for first < p.cost.pick && upTo(p.cost.pick+1)-upTo(first)+ansi.StringWidth(prompt)+1 > w {
		first++
	}
	if first == 0 {
		return prompt + strings.Join(parts, "")
	}
	return prompt + "…" + strings.Join(parts[first:], "")
}

// summaryLine says, in a client's view, what is left out and what is
// stale, including tools removed since the list was first seen (which
// have no row).
func (p *Tools) summaryLine(w int) string {
	v, ok := p.view()
	if !ok || p.viewID() == clients.Generic {
		return ""
	}
	dropped, stale := 0, 0
	var gone []string
	for _, e := range v.Tools {
		switch {
		case e.Gone:
			gone = append(gone, termsafe.String(e.Name))
		case e.Dropped != "":
			dropped++
		case e.Stale != "":
			stale++
		}
	}
	th := p.theme
	var parts []string
	if dropped > 0 {
		parts = append(parts, th.Tools.BadgeDanger.Render(fmt.Sprintf("✗ %d left out", dropped)))
	}
	if stale > 0 {
		parts = append(parts, th.Caps.Unknown.Render(fmt.Sprintf("⟲ %d seen the old way", stale)))
	}
	if len(gone) > 0 {
		parts = append(parts, th.Caps.Unknown.Render("⟲ removed, still offered: "+strings.Join(gone, ", ")))
	}
	if len(parts) == 0 {
		parts = append(parts, th.Tools.Title.Render("nothing left out or stale"))
	}
	return ansi.Truncate(strings.Join(parts, th.Detail.Label.Render(" · ")), w, "…")
}

// viewRows is how many lines above the list the picker or the summary
// take.
func (p *Tools) viewRows() int {
	if p.cost.picking || p.summaryLine(1<<16) != "" {
		return 1
	}
	return 0
}

// viewDetails are the selected tool's lines in the current client's
// view: the name the model sees, what the client does to it and why
// (each with its rule), the hints it acts on, then the list's notes.
func (p *Tools) viewDetails(idx int) []detailLine {
	if p.viewID() == clients.Generic {
		e, ok := p.entry(idx)
		if !ok {
			return nil
		}
		th := p.theme
		return []detailLine{{}, {text: th.Detail.Label.Render("costs ") + th.Detail.Value.Render(fmt.Sprintf("%d tokens", e.Tokens)) +
			th.Detail.Hint.Render(" ("+tokens.Encoding+"; v: as a client sees it)"), hang: 2}}
	}
	v, ok := p.view()
	e, eok := p.entry(idx)
	if !ok || !eok {
		return nil
	}
	th := p.theme
	out := []detailLine{{}, {text: th.Detail.Title.Render("As " + v.Client.Name() + " presents it")}}
	add := func(hang int, s string) { out = append(out, detailLine{text: s, hang: hang}) }
	named := ""
	for _, x := range e.Effects {
		if x.Text == "named "+e.Shown {
			named = "  " + x.Rule
		}
	}
	sees := "name (its renaming is not documented) "
	if v.Client.NamesKnown() {
		sees = "the model sees "
	}
	add(4, "  "+th.Detail.Label.Render(sees)+th.Tools.Name.Render(termsafe.String(e.Shown))+th.Detail.Hint.Render(fmt.Sprintf(" · %d tokens", e.Tokens)+named))
	ruleOf := func(text string) string {
		for _, x := range e.Effects {
			if x.Text == text {
				return "  " + x.Rule
			}
		}
		return ""
	}
	if e.Dropped != "" {
		add(4, "  "+th.Tools.BadgeDanger.Render("✗ "+termsafe.String(e.Dropped))+th.Detail.Hint.Render(ruleOf(e.Dropped)))
	}
	if e.Stale != "" {
		add(4, "  "+th.Caps.Unknown.Render("⟲ "+e.Stale)+th.Detail.Hint.Render(ruleOf(e.Stale)))
	}
	for _, x := range append(append([]clients.Effect(nil), e.Effects...), e.Hints...) {
		if x.Text == e.Dropped || x.Text == e.Stale || x.Text == "named "+e.Shown {
			continue // said above
		}
		add(4, "  "+th.Detail.Value.Render(termsafe.String(x.Text))+th.Detail.Hint.Render("  "+x.Rule))
	}
	for _, n := range v.Notes {
		add(4, "  "+th.Detail.Hint.Render(termsafe.String(n.Text)+"  "+n.Rule))
	}
	if v.Unknown != "" {
		add(4, "  "+th.Detail.Hint.Render(v.Unknown))
	}
	add(4, "  "+th.Detail.Hint.Render("sources: docs/clients.md"))
	return out
}

// updatePicker moves the picker and chooses.
func (p *Tools) updatePicker(msg tea.KeyPressMsg) tea.Cmd {
	k := p.keys
	all := clients.All()
	switch {
	case key.Matches(msg, k.Form.PrevOption):
		p.cost.pick = (p.cost.pick + len(all) - 1) % len(all)
	case key.Matches(msg, k.Form.NextOption):
		p.cost.pick = (p.cost.pick + 1) % len(all)
	case key.Matches(msg, k.Tools.ViewChoose):
		p.cost.viewAs, p.cost.picking = all[p.cost.pick], false
		p.applyView()
	case key.Matches(msg, k.Tools.ViewCancel):
		p.cost.picking = false
		p.resize()
	}
	return nil
}

// openPicker opens the client picker on the current view.
func (p *Tools) openPicker() {
	p.cost.picking = true
	for i, id := range clients.All() {
		if id == p.viewID() {
			p.cost.pick = i
		}
	}
	p.resize()
}

// applyView redraws the list for new costs, a new view or order, the
// cursor staying on its row (restoreRow).
func (p *Tools) applyView() {
	tool, call := p.cursorRow()
	p.refilter()
	p.rebuildRows()
	p.restoreRow(tool, call)
	p.detailKey = ""
	p.resize()
}
