package keymap

import (
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
)

// groupTitles names the KeyMap's groups as the documentation does, in
// words a user knows from the screen. A group missing here is titled by
// its field name.
var groupTitles = map[string]string{
	"Global":   "Everywhere",
	"Log":      "Log (1)",
	"Detail":   "A frame's detail",
	"Caps":     "Capabilities (2)",
	"Tools":    "Tools (3)",
	"Result":   "A tool's result",
	"JSONEdit": "The JSON editor",
	"Form":     "A tool's form",
	"Picker":   "The server picker",
	"Scroll":   "Every list and scrolling view",
	"Explore":  "Resources, prompts, logs, activity, roots (4-8) and the server's requests",
	"Diag":     "Diagnostics (9)",
	"Calls":    "Saved calls",
}

// everywhere are the bindings of other groups that work from any pane not
// capturing text, as the Global ones do: the tables list them there.
var everywhere = map[string]bool{
	"Explore.Ping": true, "Explore.Cancel": true, "Explore.Jump": true, "Calls.List": true,
}

// group is one group of the KeyMap, its bindings in declaration order.
type group struct {
	title    string
	names    []string
	bindings []key.Binding
}

// groups walks m's groups and their bindings in the order they are
// declared, so the documentation follows the source; the bindings of
// everywhere join the first group's (Global).
func (m KeyMap) groups() []group {
	var out []group
	v := reflect.ValueOf(m)
	bindingType := reflect.TypeFor[key.Binding]()
	for i := range v.NumField() {
		f := v.Type().Field(i)
		g := group{title: f.Name}
		if t, ok := groupTitles[f.Name]; ok {
			g.title = t
		}
		gv := v.Field(i)
		for j := range gv.NumField() {
			if gv.Type().Field(j).Type != bindingType {
				continue
			}
			name := f.Name + "." + gv.Type().Field(j).Name
			b := gv.Field(j).Interface().(key.Binding)
			if everywhere[name] && len(out) > 0 {
				out[0].names = append(out[0].names, name)
				out[0].bindings = append(out[0].bindings, b)
				continue
			}
			g.names = append(g.names, name)
			g.bindings = append(g.bindings, b)
		}
		out = append(out, g)
	}
	return out
}

// keyNames spells a binding's keys for a reader: arrows as arrows, a run
// of digits as a range.
func keyNames(b key.Binding) string {
	ks := b.Keys()
	if len(ks) > 2 && isDigitRun(ks) {
		return "`" + ks[0] + "`–`" + ks[len(ks)-1] + "`"
	}
	arrows := strings.NewReplacer("up", "↑", "down", "↓", "left", "←", "right", "→")
	names := make([]string, len(ks))
	for i, k := range ks {
		if k != "pgup" && k != "pgdown" {
			k = arrows.Replace(k)
		}
		names[i] = "`" + strings.ReplaceAll(k, "`", "\\`") + "`"
	}
	return strings.Join(names, " ")
}

func isDigitRun(ks []string) bool {
	for i, k := range ks {
		if len(k) != 1 || k[0] != ks[0][0]+byte(i) || k[0] < '0' || k[0] > '9' {
			return false
		}
	}
	return true
}

// cell escapes text for a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// same reports whether two bindings have the same keys and help.
func same(a, b key.Binding) bool {
	return reflect.DeepEqual(a.Keys(), b.Keys()) && a.Help() == b.Help()
}

// MarkdownTable is the README's key table: one row per group, each
// binding as its keys and what it does. A binding that only repeats the
// scroll keys every list shares (↑/k, pgup, g/G, ...) is left out of the
// other groups' rows; the row of scroll keys lists them once.
func (m KeyMap) MarkdownTable() string {
	var common []key.Binding
	v := reflect.ValueOf(m.Scroll)
	for i := range v.NumField() {
		common = append(common, v.Field(i).Interface().(key.Binding))
	}
	var b strings.Builder
	b.WriteString("| where | keys |\n|---|---|\n")
	for _, g := range m.groups() {
		var items []string
		for _, k := range g.bindings {
			if g.title != groupTitles["Scroll"] && sharesScroll(k, common) {
				continue
			}
			items = append(items, keyNames(k)+" "+cell(k.Help().Desc))
		}
		b.WriteString("| " + cell(g.title) + " | " + strings.Join(items, " · ") + " |\n")
	}
	return b.String()
}

func sharesScroll(k key.Binding, common []key.Binding) bool {
	for _, c := range common {
		if same(k, c) {
			return true
		}
	}
	return false
}

// MarkdownReference is every binding, one row each: its group, its keys,
// what the help bar calls it, and its name in the KeyMap.
func (m KeyMap) MarkdownReference() string {
	var b strings.Builder
	b.WriteString("| where | keys | help bar | KeyMap |\n|---|---|---|---|\n")
	for _, g := range m.groups() {
		for i, k := range g.bindings {
			h := k.Help()
			b.WriteString("| " + cell(g.title) + " | " + keyNames(k) + " | " +
				cell("`"+h.Key+"` "+h.Desc) + " | `" + g.names[i] + "` |\n")
		}
	}
	return b.String()
}
