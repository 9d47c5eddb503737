package ui

import "image"

// wideWidth is the width from which the panes sit side by side; below it
// they become tabs, one big pane at a time.
const wideWidth = 120

// The wide layout's columns: the log on the left, the capabilities and the
// explorer slot on the right. The right column takes defaultRightShare
// percent, more while the keyboard is in it and the explorer pane shown
// there says so (panes.Measured): what it needs (names uncut, the schema beside them) up
// to w - minLogW, then what it wants as far as the log keeps logWantW, the
// width of a typical log row. The split key moves the result by splitStep
// columns, never past minColumnW on either side.
const (
	minLogW           = 40
	logWantW          = 60
	minColumnW        = 30
	defaultRightShare = 42
	splitStep         = 4
)

// rightColumnWidth is the right column's width on a w-column screen for an
// explorer pane that needs and wants so many columns (0: no opinion),
// moved by shift columns (the split key). It also returns the shift as it
// took effect, so a key pressed against a bound changes nothing instead of
// piling up.
func rightColumnWidth(w, need, want, shift int) (width, applied int) {
	base := w - w*(100-defaultRightShare)/100
	if need > base {
		base = max(base, min(need, w-minLogW))
	}
	if room := w - logWantW; want > base && room > base {
		base = min(want, room)
	}
	width = max(minColumnW, min(base+shift, w-minColumnW))
	return width, width - base
}

// layout is the screen cut into named rectangles. It is computed once per
// window size and serves both drawing (SetSize) and mouse hit tests.
type layout struct {
	w, h   int
	tabbed bool

	header   image.Rectangle
	tabs     image.Rectangle // the tab row; empty when not tabbed
	main     image.Rectangle // the one pane shown when tabbed
	log      image.Rectangle
	caps     image.Rectangle
	tools    image.Rectangle // the explorer slot: tools, resources, prompts, server log, activity, roots
	slotTabs image.Rectangle // the slot's tab row (wide layout only)
	status   image.Rectangle
	help     image.Rectangle
	// body is every row between the top chrome (header, and the tab row
	// when tabbed) and the status line: the only rows an overlay may use.
	body  image.Rectangle
	modal image.Rectangle // where overlays (detail, handshake, help, forms, asks) go, inside body
}

func rect(x, y, w, h int) image.Rectangle {
	return image.Rect(x, y, x+max(w, 0), y+max(h, 0))
}

// computeLayout cuts a w×h screen: header on top, status and help at the
// bottom, panes in between (tabs when narrow, log | caps/tools when wide).
//
// helpH is the help bar's height: as many rows as the keys need (see
// Model.helpRows), so that no key is ever cut off. rightW is the wide
// layout's right column (see rightColumnWidth).
func computeLayout(w, h, helpH, rightW int) layout {
	l := layout{w: w, h: h}
	l.header = rect(0, 0, w, 1)
	l.help = rect(0, h-helpH, w, helpH)
	l.status = rect(0, h-helpH-1, w, 1)
	top := 1
	bodyH := h - 2 - helpH
	if w < wideWidth {
		l.tabbed = true
		l.tabs = rect(0, top, w, 1)
		l.main = rect(0, top+1, w, bodyH-1)
		l.log, l.caps, l.tools = l.main, l.main, l.main
	} else {
		logW := w - rightW
		capsH := bodyH * 35 / 100
		l.log = rect(0, top, logW, bodyH)
		l.caps = rect(logW, top, rightW, capsH)
		l.slotTabs = rect(logW, top+capsH, rightW, 1)
		l.tools = rect(logW, top+capsH+1, rightW, bodyH-capsH-1)
		l.main = rect(0, top, w, bodyH)
	}
	// Overlays are layers over the body only: the header, the tab row,
	// the status line and the help bar (however many rows it needs) stay
	// as they are, so a modal's border can never be drawn over them. The
	// modal takes the body's full width up to 160 columns (centred beyond
	// that); the rest of the body is blanked under it (see render), so
	// nothing of the panes behind shows at its edges.
	bodyTop := top
	if l.tabbed {
		bodyTop = top + 1
	}
	l.body = image.Rect(0, bodyTop, w, max(l.status.Min.Y, bodyTop))
	mw := min(w, 160)
	l.modal = rect((w-mw)/2, l.body.Min.Y, mw, l.body.Dy())
	return l
}
