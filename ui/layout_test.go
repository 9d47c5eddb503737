package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mcpscope/mcpscope/mcp"
)

// everythingTools is server-everything's tools/list (2026.8.31), as it
// answered: 17 tools whose names run to 30 columns and titles to 35.
func everythingTools(t *testing.T) []mcp.Event {
	t.Helper()
	data, err := os.ReadFile("testdata/everything-tools.json")
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		t.Fatal(err)
	}
	return []mcp.Event{mcp.ListEvent{Time: at(40), Method: "tools/list", Pages: 1, Items: items}}
}

func toolNames(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, raw := range everythingTools(t)[0].(mcp.ListEvent).Items {
		var tool struct{ Name string }
		_ = json.Unmarshal(raw, &tool)
		names = append(names, tool.Name)
	}
	return names
}

// At 120 columns the tools list once had about 50 columns and cut the
// names ("Trigger Long Running Operation Tool  t…") while the input schema
// sat below the fold. Now the list is as wide as its names and badges, and
// the selected tool's schema is beside it, at every size where both fit.
func TestToolsLayoutFitsTheNames(t *testing.T) {
	for _, theme := range []string{"dark", "light"} {
		for _, sz := range []struct{ w, h int }{{60, 15}, {80, 24}, {120, 35}} {
			t.Run(fmt.Sprintf("%s/%dx%d", theme, sz.w, sz.h), func(t *testing.T) {
				m := newTestModel(theme, sz.w, sz.h)
				feed(m, sessionEvents())
				feed(m, everythingTools(t))
				press(m, "3")
				v := content(m)
				requireScreen(t, v, sz.w, sz.h)
				golden.RequireEqual(t, v)

				screen := ansi.Strip(v)
				shown := 0
				for _, name := range toolNames(t) {
					// A row starts with the cursor mark, then the name and a
					// space: the whole name, not a cut one.
					if strings.Contains(screen, "│  "+name+" ") || strings.Contains(screen, "│▸ "+name+" ") {
						shown++
					}
				}
				rows := min(17, m.layout.tools.Dy()-2)
				if sz.w < wideWidth {
					rows = min(17, m.layout.main.Dy()-2)
				}
				if sz.w >= 80 && shown != rows {
					t.Errorf("%d whole tool names on screen, want %d (one per list row):\n%s", shown, rows, screen)
				}
				if sz.w < 80 && shown == 0 {
					t.Errorf("no whole tool name on screen:\n%s", screen)
				}
				if sz.w >= 80 {
					for _, want := range []string{"Input schema", `"message": {`, "Echoes back the input string"} {
						if !strings.Contains(screen, want) {
							t.Errorf("the selected tool's %q is not on screen:\n%s", want, screen)
						}
					}
					// Beside the list: on the row of a tool name.
					if !strings.Contains(screen, "get-resource-links") || !lineHas(screen, "get-resource-links", "Description") {
						t.Errorf("the details are not beside the list:\n%s", screen)
					}
				}
			})
		}
	}
}

// lineHas reports whether one line of s holds every part.
func lineHas(s string, parts ...string) bool {
	for _, l := range strings.Split(s, "\n") {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			return true
		}
	}
	return false
}

// The split key moves the wide layout's columns, within bounds, and says
// so in the help bar; in the tabbed layout there is no split to move.
func TestSplitKeyMovesTheColumns(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, everythingTools(t))
	right := m.layout.caps.Dx()
	if lw := m.layout.log.Dx(); lw+right != 120 || lw < minLogW {
		t.Fatalf("log %d + right %d: want 120 with the log at least %d", lw, right, minLogW)
	}
	if !strings.Contains(ansi.Strip(content(m)), "</> move split") {
		t.Error("the help bar does not show the split key")
	}
	press(m, "<")
	if got := m.layout.caps.Dx(); got != right+splitStep {
		t.Fatalf("< made the right column %d, want %d", got, right+splitStep)
	}
	if m.tools.(interface{ View() string }).View() == "" || m.layout.tools.Dx() != right+splitStep {
		t.Fatal("the explorer slot did not follow the split")
	}
	press(m, ">", ">")
	if got := m.layout.caps.Dx(); got != right-splitStep {
		t.Fatalf("> > made the right column %d, want %d", got, right-splitStep)
	}
	for range 40 {
		press(m, ">")
	}
	if got := m.layout.caps.Dx(); got != minColumnW {
		t.Fatalf("the right column went to %d, want the bound %d", got, minColumnW)
	}
	// Against the bound the key changes nothing: one step back moves at once.
	press(m, "<")
	if got := m.layout.caps.Dx(); got != minColumnW+splitStep {
		t.Fatalf("one < after the bound gave %d, want %d", got, minColumnW+splitStep)
	}
	requireScreen(t, content(m), 120, 35)

	narrow := newTestModel("dark", 80, 24)
	feed(narrow, sessionEvents())
	if strings.Contains(ansi.Strip(content(narrow)), "move split") {
		t.Error("the tabbed layout offers a split it does not have")
	}
}

func TestRightColumnWidth(t *testing.T) {
	for _, c := range []struct {
		w, need, want, shift int
		width                int
	}{
		{120, 0, 0, 0, 51},     // no opinion: the default share
		{120, 40, 45, 0, 51},   // asks for less than the share
		{120, 75, 120, 0, 75},  // needs 75: the log keeps 45
		{120, 100, 120, 0, 80}, // needs more than the log can give: the log keeps minLogW
		{160, 60, 90, 0, 90},   // gets all it wants: the log keeps more than logWantW
		{140, 60, 120, 0, 80},  // wants 120: the log keeps logWantW
		{250, 60, 90, 0, 105},  // the share is more than it wants
		{120, 75, 120, -8, 67}, // moved by the key
		{120, 75, 120, 90, 90}, // not past minColumnW for the log
	} {
		got, _ := rightColumnWidth(c.w, c.need, c.want, c.shift)
		if got != c.width {
			t.Errorf("rightColumnWidth(%d, %d, %d, %d) = %d, want %d", c.w, c.need, c.want, c.shift, got, c.width)
		}
	}
}

// The column with the keyboard gets the room: the log its share while it
// is focused (its rows are cut first otherwise), the tools what their
// names and schema need once the keyboard moves there.
func TestFocusedColumnGetsTheRoom(t *testing.T) {
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, everythingTools(t))
	logW := m.layout.log.Dx()
	if logW != 120*58/100 {
		t.Fatalf("with the log focused it is %d wide, want its share %d", logW, 120*58/100)
	}
	press(m, "3")
	if got := m.layout.log.Dx(); got >= logW || m.layout.tools.Dx() <= 120-logW {
		t.Fatalf("focused, the tools got %d columns (log %d): no more than before", m.layout.tools.Dx(), got)
	}
	press(m, "1")
	if got := m.layout.log.Dx(); got != logW {
		t.Fatalf("back on the log it is %d wide, want %d", got, logW)
	}
}

// The resources pane asks for its widest row: a URI that the default share
// cut is whole once the keyboard is in the right column.
func TestResourcesWidenTheColumn(t *testing.T) {
	const uri = "file:///project/docs/README.md"
	m := newTestModel("dark", 120, 35)
	feed(m, sessionEvents())
	feed(m, []mcp.Event{mcp.ListEvent{Time: at(41), Method: "resources/list", Pages: 1, Items: []json.RawMessage{
		json.RawMessage(`{"name":"readme","uri":"` + uri + `","mimeType":"text/markdown"}`),
	}}})
	press(m, "4")
	if !strings.Contains(ansi.Strip(content(m)), uri+" text/markdown") {
		t.Fatalf("the resource's URI and type are cut:\n%s", ansi.Strip(content(m)))
	}
	if lw := m.layout.log.Dx(); lw < logWantW {
		t.Fatalf("the log was left %d columns, want at least %d", lw, logWantW)
	}
}
