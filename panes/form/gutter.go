package form

import (
	"math"
	"strconv"

	"charm.land/bubbles/v2/textarea"
)

// FitGutter keeps a numbered textarea's gutter as wide as its widest line
// number (the last line's, or the last row's on screen), so that line 10
// lines up with line 9. The textarea sizes its gutter by the digits of
// MaxHeight (bubbles v2.2.1: lineNumberView and SetWidth), so MaxHeight is
// kept that many digits wide, and the lines are bounded by
// MaxContentHeight instead, here unbounded (the textarea's own 10,000-line
// cap stays). The width and height are set again when the gutter changes,
// or always when resize is set.
func FitGutter(a *textarea.Model, w, rows int, resize bool) {
	a.MaxContentHeight = math.MaxInt
	rows = max(rows, 1)
	top := 1
	for range len(strconv.Itoa(max(a.LineCount(), rows))) {
		top *= 10
	}
	if top-1 == a.MaxHeight && !resize {
		return
	}
	a.MaxHeight = top - 1
	a.SetWidth(w)
	a.SetHeight(rows)
}
