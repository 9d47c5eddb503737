package panes

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/mcpscope/mcpscope/keymap"
	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/mcp/policy"
	"github.com/mcpscope/mcpscope/panes/list"
	"github.com/mcpscope/mcpscope/themes"
)

// RootsChangedMsg carries the edited roots list to the root model, which
// answers roots/list from it and sends notifications/roots/list_changed.
type RootsChangedMsg struct{ Roots []policy.Root }

// Roots shows and edits the roots mcpscope offers the server (roots/list),
// starting from the --root flags.
type Roots struct {
	theme   *themes.Theme
	keys    keymap.KeyMap
	w, h    int
	focused bool
	roots   []policy.Root
	cur     int
	// list scrolls the roots (panes/list): paging, g/G, the wheel, W and
	// ←/→ for long URIs.
	list   *list.Model
	adding bool
	input  textinput.Model
	note   string
	asked  int
}

// NewRoots makes the roots pane.
func NewRoots(t *themes.Theme, k keymap.KeyMap, roots []policy.Root) *Roots {
	in := textinput.New()
	in.Prompt = "path or URI: "
	in.SetStyles(t.TextInput)
	r := &Roots{theme: t, keys: k, roots: roots, input: in}
	sc := k.Scroll
	sc.Up, sc.Down = k.Explore.Up, k.Explore.Down
	r.list = list.New(sc, r.line)
	r.list.SetSelecting(true)
	r.list.SetLen(len(roots))
	return r
}

func (r *Roots) SetTheme(t *themes.Theme) { r.theme = t; r.input.SetStyles(t.TextInput) }
func (r *Roots) Title() string            { return "Roots" }
func (r *Roots) SetSize(w, h int)         { r.w, r.h = w, h; r.input.SetWidth(max(w-20, 10)) }
func (r *Roots) Focus()                   { r.focused = true }
func (r *Roots) Blur()                    { r.focused = false; r.adding = false; r.input.Blur() }
func (r *Roots) Capturing() bool          { return r.adding }

// List is the roots offered now.
func (r *Roots) List() []policy.Root { return r.roots }

// Asked counts a roots/list the server sent (shown so the user sees it was answered).
func (r *Roots) Asked() { r.asked++ }

// SetNote shows a line under the list (e.g. the list_changed outcome).
func (r *Roots) SetNote(s string) { r.note = s }

func (r *Roots) changed() tea.Cmd {
	roots := append([]policy.Root(nil), r.roots...)
	return func() tea.Msg { return RootsChangedMsg{Roots: roots} }
}

func (r *Roots) Update(msg tea.Msg) tea.Cmd {
	km, ok := msg.(tea.KeyPressMsg)
	if !ok {
		if !r.adding && r.list.Update(msg) { // the wheel
			r.cur = r.list.Cursor()
		}
		return nil
	}
	e := r.keys.Explore
	if r.adding {
		switch {
		case key.Matches(km, e.Back):
			r.adding = false
			r.input.Blur()
			return nil
		case key.Matches(km, e.Open):
			v := r.input.Value()
			r.adding = false
			r.input.Blur()
			if v == "" {
				return nil
			}
			root, err := policy.RootFromPath(v)
			if err != nil {
				r.note = err.Error()
				return nil
			}
			r.roots = append(r.roots, root)
			r.cur = len(r.roots) - 1
			return r.changed()
		}
		var cmd tea.Cmd
		r.input, cmd = r.input.Update(km)
		return cmd
	}
	switch {
	case key.Matches(km, e.Add):
		r.adding = true
		r.input.SetValue("")
		return r.input.Focus()
	case key.Matches(km, e.Delete) && len(r.roots) > 0:
		r.roots = append(r.roots[:r.cur:r.cur], r.roots[r.cur+1:]...)
		r.cur = max(min(r.cur, len(r.roots)-1), 0)
		return r.changed()
	default:
		r.sync()
		if r.list.Update(km) {
			r.cur = r.list.Cursor()
		}
	}
	return nil
}

// sync gives the list the roots and the cursor.
func (r *Roots) sync() {
	r.list.SetLen(len(r.roots))
	r.list.Select(r.cur)
}

// line is root i: its URI and name.
func (r *Roots) line(i int) string {
	t := r.theme
	root := r.roots[i]
	s := t.Tools.Name.Render(termsafe.String(root.URI))
	if root.Name != "" {
		s += " " + t.Tools.Description.Render(termsafe.String(root.Name))
	}
	return s
}

func (r *Roots) ShortHelp() []key.Binding {
	e := r.keys.Explore
	if r.adding {
		open := e.Open
		open.SetHelp("enter", "add")
		return []key.Binding{open, e.Back}
	}
	// Moving, paging, sideways and wrap need roots to act on; the pane's
	// own lines are always wrapped whole.
	sc := r.keys.Scroll
	up, down, del, page, left, wrap := e.Up, e.Down, e.Delete, sc.PageDown, sc.Left, sc.Wrap
	for _, b := range []*key.Binding{&up, &down, &del, &page, &left, &wrap} {
		b.SetEnabled(len(r.roots) > 0)
	}
	return []key.Binding{up, down, e.Add, del, page, left, wrap}
}

func (r *Roots) FullHelp() [][]key.Binding {
	if r.adding {
		return [][]key.Binding{r.ShortHelp()}
	}
	e := r.keys.Explore
	return [][]key.Binding{r.list.FullHelp(), {e.Add, e.Delete}}
}

func (r *Roots) View() string {
	t := r.theme
	var body, foot []string
	for _, l := range wrapWords("answered to roots/list; a change sends notifications/roots/list_changed", r.w-2, 0) {
		body = append(body, t.Form.Hint.Render(l))
	}
	if r.adding {
		foot = append(foot, "", termsafe.Rendered(r.input.View()))
	}
	if r.asked > 0 {
		foot = append(foot, "", t.Status.OK.Render(plural.Of(r.asked, "roots/list request answered", "roots/list requests answered")))
	}
	if r.note != "" {
		for _, l := range wrapWords(termsafe.String(r.note), r.w-2, 0) {
			foot = append(foot, t.Status.Info.Render(l))
		}
	}
	var empty []string
	if len(r.roots) == 0 {
		for _, l := range wrapWords("  no roots: roots/list is answered with an empty list (a adds one)", r.w-2, 2) {
			empty = append(empty, t.Log.Empty.Render(l))
		}
	}
	// The list gets the rows between the hint and the lines under it.
	r.list.SetSize(max(r.w-4, 0), max(r.h-2-len(body)-len(foot)-len(empty), 1))
	r.sync()
	body = append(body, listRows(t, r.list, r.focused, r.w-2)...)
	body = append(append(body, empty...), foot...)
	tail := ""
	if p := r.list.Position(); p != "" {
		tail = " · " + p
	}
	return Box(t, TitleKeeping(r.Title(), tail, r.w), r.focused, r.w, r.h, body)
}
