// Package themes turns a palette of semantic colours into every style the
// terminal UI draws with: lipgloss styles grouped by screen area, the bubbles
// help and textinput styles, and the chroma style code is highlighted with. Panes
// never pick colours themselves; they read them from one *Theme, so a new
// theme is a new Palette and nothing else.
package themes

import (
	"fmt"
	"image/color"
	"strings"
	"sync"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
	"github.com/alecthomas/chroma/v2"
)

// Palette holds the semantic colour tokens a theme is built from. A nil
// colour means "the terminal's default".
type Palette struct {
	Primary      color.Color // focus, titles, the brand colour
	Text         color.Color // ordinary text
	Subtle       color.Color // secondary text: times, sizes, hints
	Muted        color.Color // de-emphasised text: separators, disabled items
	Border       color.Color // blurred pane borders
	Error        color.Color // errors the server sent
	Warn         color.Color // oddities: probes, unknown ids, duplicates
	OK           color.Color // success, ready state
	Outgoing     color.Color // frames mcpscope sent
	Incoming     color.Color // frames the server sent
	Notification color.Color // notifications (either way)
	Stderr       color.Color // the server's stderr lines
	LocalError   color.Color // failures mcpscope synthesised (timeout, cancel, lost)
	SelectionBg  color.Color // the selected row's background
	SelectionFg  color.Color // the selected row's text
	HeaderBg     color.Color // the header bar's background

	// Syntax colours: JSON's, and through the chroma style built from
	// them (Theme.Chroma), every language's.
	JSONKey    color.Color // JSON keys, tags, function names, headings
	JSONString color.Color // strings of every language
	JSONNumber color.Color
	JSONBool   color.Color // true, false and null; keywords
	JSONPunct  color.Color // punctuation and operators
}

// Theme is every style the UI uses, built once from a Palette.
type Theme struct {
	IsDark bool
	// Plain is true for the NO_COLOR theme: panes should not rely on colour
	// alone to tell things apart (selection uses reverse video, for one).
	Plain   bool
	Palette Palette

	Pane struct {
		Focused      lipgloss.Style // border of the focused pane
		Blurred      lipgloss.Style // border of the other panes
		Title        lipgloss.Style // title text of the focused pane
		TitleBlurred lipgloss.Style
	}
	Header struct {
		Bar     lipgloss.Style
		Name    lipgloss.Style // the server's name
		Label   lipgloss.Style // "transport", "protocol", ...
		Value   lipgloss.Style
		Ready   lipgloss.Style // connection states
		Pending lipgloss.Style
		Failed  lipgloss.Style
	}
	Tabs struct {
		Active   lipgloss.Style
		Inactive lipgloss.Style
		Bar      lipgloss.Style
	}
	Status struct {
		Bar   lipgloss.Style
		Info  lipgloss.Style
		Error lipgloss.Style
		OK    lipgloss.Style
	}
	Help      help.Styles
	TextInput textinput.Styles
	Log       struct {
		Time         lipgloss.Style
		Outgoing     lipgloss.Style // the arrow and kind of a frame we sent
		Incoming     lipgloss.Style
		Notification lipgloss.Style
		Method       lipgloss.Style
		ID           lipgloss.Style
		Size         lipgloss.Style
		Latency      lipgloss.Style
		Stderr       lipgloss.Style
		Transport    lipgloss.Style // HTTP exchanges, SSE events, reconnects, OAuth steps
		State        lipgloss.Style // connection state lines
		Separator    lipgloss.Style // the reconnect separator
		Selected     lipgloss.Style // the cursor row
		Empty        lipgloss.Style

		BadgeError      lipgloss.Style // an error response from the server
		BadgeInvalid    lipgloss.Style
		BadgeProbe      lipgloss.Style
		BadgeUnknown    lipgloss.Style // UNKNOWN-ID and DUP
		BadgeLocalError lipgloss.Style // TIMEOUT, CANCELLED, LOST: our doing, not the server's
		LocalError      lipgloss.Style // the text of a local error line
		Exit            lipgloss.Style // the server's exit line

		// The status of an exchange in the paired view: answered, still
		// waiting. Its failures use BadgeError (the server's) and
		// LocalError (mcpscope's).
		StatusOK      lipgloss.Style
		StatusPending lipgloss.Style

		FilterPrompt lipgloss.Style
	}
	Detail struct {
		Title   lipgloss.Style
		Label   lipgloss.Style
		Value   lipgloss.Style
		Problem lipgloss.Style
		Raw     lipgloss.Style
		LineNo  lipgloss.Style
		Hint    lipgloss.Style
	}
	Caps struct {
		Node        lipgloss.Style
		Leaf        lipgloss.Style
		Explanation lipgloss.Style
		Count       lipgloss.Style
		Unknown     lipgloss.Style
		Selected    lipgloss.Style
		Granted     lipgloss.Style
		Missing     lipgloss.Style
	}
	Tools struct {
		Name        lipgloss.Style
		Title       lipgloss.Style
		Description lipgloss.Style
		Selected    lipgloss.Style
		Badge       lipgloss.Style
		BadgeDanger lipgloss.Style
		Match       lipgloss.Style // fuzzy-filter matched characters
	}
	Handshake struct {
		Label   lipgloss.Style
		Offered lipgloss.Style
		Granted lipgloss.Style
		Differ  lipgloss.Style // offered and answered disagree
		Section lipgloss.Style
	}
	Form struct {
		Label lipgloss.Style
		Error lipgloss.Style
		Hint  lipgloss.Style
		// Used by the schema form (panes/form).
		Focused  lipgloss.Style // the label of the field under the cursor
		Required lipgloss.Style // the required mark
		Value    lipgloss.Style // a field's value
		Omitted  lipgloss.Style // "omitted", "null", placeholders
		Group    lipgloss.Style // object, array and oneOf headers
		OK       lipgloss.Style // "valid" in the status line
		Warn     lipgloss.Style // notes: JSON fallback, forced send
	}
	Result struct {
		OK      lipgloss.Style
		Error   lipgloss.Style
		Content lipgloss.Style
	}
	JSON struct {
		Key    lipgloss.Style
		String lipgloss.Style
		Number lipgloss.Style
		Bool   lipgloss.Style
		Punct  lipgloss.Style
	}
	// Diag styles the protocol doctor: the severity badges (E, W, H) in
	// the log and the diagnostics pane, and the explanation labels.
	Diag struct {
		Error   lipgloss.Style
		Warning lipgloss.Style
		Hint    lipgloss.Style
		Rule    lipgloss.Style // a rule id
		Label   lipgloss.Style // "why", "fix", "spec"
	}
	// Markdown styles a server's Markdown rendered for the terminal
	// (panes/markdown); emphasis, strong and strikethrough are
	// attributes on top of these.
	Markdown struct {
		Heading1  lipgloss.Style // a top-level heading
		Heading   lipgloss.Style // the other levels
		Code      lipgloss.Style // inline code, and code blocks not highlighted
		Link      lipgloss.Style // a link's text
		URL       lipgloss.Style // the URL drawn after it, as text
		Quote     lipgloss.Style // a block quote's bar and text
		Rule      lipgloss.Style // thematic breaks and table rules
		TableHead lipgloss.Style // a table's header cells
		Task      lipgloss.Style // a ticked task's box
		Image     lipgloss.Style // "image:" and an image's alt text
		HTML      lipgloss.Style // raw HTML, shown as text
	}
	Modal lipgloss.Style // the frame around overlays

	chromaOnce  sync.Once
	chromaStyle *chroma.Style
}

func fg(c color.Color) lipgloss.Style {
	s := lipgloss.NewStyle()
	if c != nil {
		s = s.Foreground(c)
	}
	return s
}

func bg(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c != nil {
		s = s.Background(c)
	}
	return s
}

func border(s lipgloss.Style, c color.Color) lipgloss.Style {
	if c != nil {
		s = s.BorderForeground(c)
	}
	return s
}

// New builds a Theme from a palette.
func New(p Palette, isDark bool) *Theme {
	t := &Theme{IsDark: isDark, Palette: p}
	base := lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	t.Pane.Focused = border(base, p.Primary)
	t.Pane.Blurred = border(base, p.Border)
	t.Pane.Title = fg(p.Primary).Bold(true)
	t.Pane.TitleBlurred = fg(p.Subtle)

	t.Header.Bar = bg(fg(p.Text), p.HeaderBg)
	t.Header.Name = fg(p.Primary).Bold(true)
	t.Header.Label = fg(p.Subtle)
	t.Header.Value = fg(p.Text)
	t.Header.Ready = fg(p.OK).Bold(true)
	t.Header.Pending = fg(p.Warn).Bold(true)
	t.Header.Failed = fg(p.Error).Bold(true)

	t.Tabs.Active = fg(p.Primary).Bold(true).Underline(true)
	t.Tabs.Inactive = fg(p.Subtle)
	t.Tabs.Bar = lipgloss.NewStyle()

	t.Status.Bar = fg(p.Subtle)
	t.Status.Info = fg(p.Subtle)
	t.Status.Error = fg(p.Error).Bold(true)
	t.Status.OK = fg(p.OK)

	t.Help = help.Styles{
		ShortKey:       fg(p.Subtle).Bold(true),
		ShortDesc:      fg(p.Muted),
		ShortSeparator: fg(p.Muted),
		Ellipsis:       fg(p.Muted),
		FullKey:        fg(p.Subtle).Bold(true),
		FullDesc:       fg(p.Muted),
		FullSeparator:  fg(p.Muted),
	}
	t.TextInput = textinput.DefaultStyles(isDark)
	t.TextInput.Focused.Prompt = fg(p.Primary)
	t.TextInput.Focused.Text = fg(p.Text)
	t.TextInput.Focused.Placeholder = fg(p.Muted)
	t.TextInput.Blurred.Prompt = fg(p.Subtle)
	t.TextInput.Blurred.Text = fg(p.Subtle)
	t.TextInput.Blurred.Placeholder = fg(p.Muted)
	if p.Primary != nil {
		t.TextInput.Cursor.Color = p.Primary
	}

	t.Log.Time = fg(p.Subtle)
	t.Log.Outgoing = fg(p.Outgoing)
	t.Log.Incoming = fg(p.Incoming)
	t.Log.Notification = fg(p.Notification)
	t.Log.Method = fg(p.Text)
	t.Log.ID = fg(p.Subtle)
	t.Log.Size = fg(p.Muted)
	t.Log.Latency = fg(p.Subtle)
	t.Log.Stderr = fg(p.Stderr).Italic(true)
	t.Log.Transport = fg(p.Subtle)
	t.Log.State = fg(p.Primary).Italic(true)
	t.Log.Separator = fg(p.Muted)
	t.Log.Selected = bg(lipgloss.NewStyle(), p.SelectionBg)
	if p.SelectionFg != nil {
		t.Log.Selected = t.Log.Selected.Foreground(p.SelectionFg)
	}
	t.Log.Empty = fg(p.Muted).Italic(true)
	t.Log.BadgeError = fg(p.Error).Bold(true)
	t.Log.BadgeInvalid = fg(p.Error).Bold(true).Underline(true)
	t.Log.BadgeProbe = fg(p.Warn)
	t.Log.BadgeUnknown = fg(p.Warn).Bold(true)
	// Local errors are ours, not the server's: a different colour and
	// reverse video so they never read as a server error at a glance.
	t.Log.BadgeLocalError = fg(p.LocalError).Bold(true).Reverse(true)
	t.Log.LocalError = fg(p.LocalError)
	t.Log.Exit = fg(p.Error).Bold(true)
	t.Log.StatusOK = fg(p.OK)
	t.Log.StatusPending = fg(p.Warn)
	t.Log.FilterPrompt = fg(p.Primary).Bold(true)

	t.Detail.Title = fg(p.Primary).Bold(true)
	t.Detail.Label = fg(p.Subtle)
	t.Detail.Value = fg(p.Text)
	t.Detail.Problem = fg(p.Error).Bold(true)
	t.Detail.Raw = fg(p.Text)
	t.Detail.LineNo = fg(p.Muted)
	t.Detail.Hint = fg(p.Muted).Italic(true)

	t.Caps.Node = fg(p.Primary).Bold(true)
	t.Caps.Leaf = fg(p.Text)
	t.Caps.Explanation = fg(p.Subtle)
	t.Caps.Count = fg(p.Notification)
	t.Caps.Unknown = fg(p.Warn)
	t.Caps.Selected = t.Log.Selected
	t.Caps.Granted = fg(p.OK)
	t.Caps.Missing = fg(p.Muted)

	t.Tools.Name = fg(p.Text).Bold(true)
	t.Tools.Title = fg(p.Subtle)
	t.Tools.Description = fg(p.Subtle)
	t.Tools.Selected = t.Log.Selected
	t.Tools.Badge = fg(p.Notification)
	t.Tools.BadgeDanger = fg(p.Error)
	t.Tools.Match = fg(p.Primary).Underline(true)

	t.Handshake.Label = fg(p.Subtle)
	t.Handshake.Offered = fg(p.Outgoing)
	t.Handshake.Granted = fg(p.Incoming)
	t.Handshake.Differ = fg(p.Warn).Bold(true)
	t.Handshake.Section = fg(p.Primary).Bold(true)

	t.Form.Label = fg(p.Text).Bold(true)
	t.Form.Error = fg(p.Error)
	t.Form.Hint = fg(p.Muted)
	t.Form.Focused = fg(p.Primary).Bold(true)
	t.Form.Required = fg(p.Error).Bold(true)
	t.Form.Value = fg(p.Text)
	t.Form.Omitted = fg(p.Muted).Italic(true)
	t.Form.Group = fg(p.Subtle).Bold(true)
	t.Form.OK = fg(p.OK)
	t.Form.Warn = fg(p.Warn)

	t.Result.OK = fg(p.OK).Bold(true)
	t.Result.Error = fg(p.Error).Bold(true)
	t.Result.Content = fg(p.Text)

	t.JSON.Key = fg(p.JSONKey)
	t.JSON.String = fg(p.JSONString)
	t.JSON.Number = fg(p.JSONNumber)
	t.JSON.Bool = fg(p.JSONBool)
	t.JSON.Punct = fg(p.JSONPunct)

	t.Diag.Error = fg(p.Error).Bold(true).Reverse(true)
	t.Diag.Warning = fg(p.Warn).Bold(true).Reverse(true)
	t.Diag.Hint = fg(p.Subtle).Bold(true)
	t.Diag.Rule = fg(p.Text).Bold(true)
	t.Diag.Label = fg(p.Primary).Bold(true)

	t.Markdown.Heading1 = fg(p.Primary).Bold(true).Underline(true)
	t.Markdown.Heading = fg(p.JSONKey).Bold(true)
	t.Markdown.Code = fg(p.JSONString)
	t.Markdown.Link = fg(p.Primary).Bold(true)
	t.Markdown.URL = fg(p.Outgoing).Underline(true)
	t.Markdown.Quote = fg(p.Subtle).Italic(true)
	t.Markdown.Rule = fg(p.Muted)
	t.Markdown.TableHead = fg(p.Text).Bold(true)
	t.Markdown.Task = fg(p.OK).Bold(true)
	t.Markdown.Image = fg(p.Subtle)
	t.Markdown.HTML = fg(p.Muted)

	t.Modal = border(lipgloss.NewStyle().Border(lipgloss.RoundedBorder()), p.Primary)
	return t
}

// Chroma is the chroma style code is highlighted with (JSON, Markdown and
// every other language), built from the palette on first use and
// memoized. It is nil for the plain theme: callers then show code plain.
// A token type whose colour the palette leaves nil takes the text colour,
// by chroma's inheritance.
func (t *Theme) Chroma() *chroma.Style {
	if t.Plain {
		return nil
	}
	t.chromaOnce.Do(func() {
		p := t.Palette
		entries := chroma.StyleEntries{}
		add := func(tt chroma.TokenType, attrs string, c color.Color) {
			if c != nil {
				r, g, b, _ := c.RGBA()
				attrs = strings.TrimSpace(fmt.Sprintf("%s #%02x%02x%02x", attrs, r>>8, g>>8, b>>8))
			}
			if attrs != "" {
				entries[tt] = attrs
			}
		}
		add(chroma.Text, "", p.Text)
		add(chroma.Error, "", p.Error)
		add(chroma.NameTag, "", p.JSONKey)
		add(chroma.NameFunction, "", p.JSONKey)
		add(chroma.NameClass, "", p.Notification)
		add(chroma.NameBuiltin, "", p.Notification)
		add(chroma.NameDecorator, "", p.Notification)
		add(chroma.NameAttribute, "", p.Incoming)
		add(chroma.KeywordType, "", p.Notification)
		add(chroma.Keyword, "", p.JSONBool)
		add(chroma.LiteralString, "", p.JSONString)
		add(chroma.LiteralNumber, "", p.JSONNumber)
		add(chroma.Punctuation, "", p.JSONPunct)
		add(chroma.Operator, "", p.JSONPunct)
		add(chroma.Comment, "italic", p.Muted)
		add(chroma.GenericHeading, "bold", p.JSONKey)
		add(chroma.GenericSubheading, "bold", p.JSONKey)
		add(chroma.GenericEmph, "italic", nil)
		add(chroma.GenericStrong, "bold", nil)
		add(chroma.GenericInserted, "", p.OK)
		add(chroma.GenericDeleted, "", p.Error)
		add(chroma.GenericPrompt, "", p.Subtle)
		add(chroma.GenericOutput, "", p.Subtle)
		t.chromaStyle = chroma.MustNewStyle("mcpscope", entries)
	})
	return t.chromaStyle
}

// Dark is the default theme for dark terminals.
func Dark() *Theme { return Default(true) }

// Light is the default theme for light terminals.
func Light() *Theme { return Default(false) }

// Default is mcpscope's own palette for a dark or a light background.
func Default(isDark bool) *Theme {
	ld := lipgloss.LightDark(isDark)
	c := lipgloss.Color
	return New(Palette{
		Primary:      ld(c("#5A56E0"), c("#8B87FF")),
		Text:         ld(c("#1F1F24"), c("#E4E4EA")),
		Subtle:       ld(c("#5C5C66"), c("#A0A0AC")),
		Muted:        ld(c("#9A9AA4"), c("#62626C")),
		Border:       ld(c("#C8C8D0"), c("#3C3C46")),
		Error:        ld(c("#C8102E"), c("#FF5F6D")),
		Warn:         ld(c("#A05A00"), c("#F2B84B")),
		OK:           ld(c("#1A7F37"), c("#5FD38D")),
		Outgoing:     ld(c("#0B6FA4"), c("#5FB7F2")),
		Incoming:     ld(c("#7A3EB1"), c("#C792EA")),
		Notification: ld(c("#00796B"), c("#4FD6BE")),
		Stderr:       ld(c("#7A6A00"), c("#C9B458")),
		LocalError:   ld(c("#B04A00"), c("#FF9E57")),
		SelectionBg:  ld(c("#DCDCF5"), c("#2E2C5C")),
		SelectionFg:  ld(c("#1F1F24"), c("#FFFFFF")),
		HeaderBg:     ld(c("#ECECF4"), c("#1C1B2E")),
		JSONKey:      ld(c("#0B6FA4"), c("#82AAFF")),
		JSONString:   ld(c("#1A7F37"), c("#C3E88D")),
		JSONNumber:   ld(c("#A05A00"), c("#F78C6C")),
		JSONBool:     ld(c("#7A3EB1"), c("#C792EA")),
		JSONPunct:    ld(c("#5C5C66"), c("#89DDFF")),
	}, isDark)
}

// NoColor is the theme for NO_COLOR: no colours at all, but bold, italic,
// underline and reverse video still mark what colour would have (the
// selection, badges, focus). The caller decides when to use it; this
// package never reads the environment.
func NoColor() *Theme {
	t := New(Palette{}, true)
	t.Plain = true
	t.Log.Selected = lipgloss.NewStyle().Reverse(true)
	t.Caps.Selected = t.Log.Selected
	t.Tools.Selected = t.Log.Selected
	t.Form.Focused = t.Log.Selected.Bold(true)
	t.Pane.Focused = lipgloss.NewStyle().Border(lipgloss.ThickBorder())
	t.Pane.Blurred = lipgloss.NewStyle().Border(lipgloss.RoundedBorder())
	t.TextInput.Cursor.Color = nil
	return t
}
