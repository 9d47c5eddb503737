package jsonview

import (
	"bytes"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// A tool's 20 MB JSON text reaches the result view as a JSON string full
// of escapes: it is decoded, then checked as JSON and its pretty-printed
// lines indexed (ValidIndentLines), two steps of about the same cost. The
// second step needs only the text before the point it has reached, so
// StringIndented runs the two at once on two goroutines: the decoder
// publishes how far it has written, and the indexer follows it.

// publishEvery is how many decoded bytes the decoder writes between two
// reports of its progress.
const publishEvery = 256 << 10

// followWindow is how far ahead of the token it reads the indexer wants
// the decoded text: no token shorter than this is cut by the end of
// what was decoded so far. A longer one may be; the indexer then fails
// there, and its answer is found again from the whole text.
const followWindow = 64 << 10

// catchUp is how much further than it needs the indexer waits for the
// decoder once it has caught up with it: each wait is a sleep and a
// wake-up, which on a busy machine can cost milliseconds, so the two
// take turns a dozen times for a 20 MB text, not at every publish.
const catchUp = 2 << 20

// pipelineBytes is the escaped string's length from which StringIndented
// decodes and indexes at once; below it a goroutine costs more than it
// saves.
const pipelineBytes = 1 << 20

// progressive is a string being decoded by one goroutine while another
// reads what is already decoded.
type progressive struct {
	mu      sync.Mutex
	changed sync.Cond
	written []byte // the decoded bytes so far (a prefix of the output)
	done    bool
	grown   bool   // the output was moved to a bigger buffer: written is stale
	text    string // when done: the decoded string
	ok      bool   // when done: the string was well formed
}

// publish tells the reader that out (the output so far) is written.
func (p *progressive) publish(out []byte) {
	p.mu.Lock()
	p.written = out
	p.mu.Unlock()
	p.changed.Broadcast()
}

// moved tells the reader that the output moved: it must wait for the end.
func (p *progressive) moved() {
	p.mu.Lock()
	p.grown = true
	p.mu.Unlock()
}

// finish records the decoded string.
func (p *progressive) finish(text string, ok bool) {
	p.mu.Lock()
	p.text, p.ok, p.done = text, ok, true
	p.mu.Unlock()
	p.changed.Broadcast()
}

// wait blocks until at least need bytes are decoded (catchUp more, when
// it has to wait at all) or the decoding is over, and returns what is decoded and whether that is all of it (then
// nil when the decoding failed or moved the output).
func (p *progressive) wait(need int) ([]byte, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.done && len(p.written) < need && need < math.MaxInt-catchUp {
		need += catchUp
	}
	for !p.done && (p.grown || len(p.written) < need) {
		p.changed.Wait()
	}
	if !p.done {
		return p.written, false
	}
	if !p.ok || p.grown {
		return nil, true
	}
	return unsafe.Slice(unsafe.StringData(p.text), len(p.text)), true
}

// StringIndented is StringView(raw) and, when the decoded text without the
// white space around it (strings.TrimSpace's) is a valid JSON object or
// array, its pretty-printed lines (ValidIndentLines of the trimmed text);
// x is nil for any other text. A long string with escapes is decoded on
// a goroutine of its own while this one checks and indexes the text
// behind it, so a 20 MB JSON text is ready in about the time of the
// slower of the two steps rather than of both (BenchmarkJSONText20MB).
func StringIndented(raw []byte, indent string) (text string, x *Indented, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", nil, false
	}
	s := raw[1 : len(raw)-1]
	if len(s) < pipelineBytes || bytes.IndexByte(s, '\\') < 0 {
		if text, ok = StringView(raw); !ok {
			return "", nil, false
		}
		return text, jsonTextLines(text, indent), true
	}
	p := &progressive{}
	p.changed.L = &p.mu
	go func() {
		text, ok := unquoteTo(make([]byte, len(s)+8), s, p)
		p.finish(text, ok)
	}()
	x, settled := followIndent(p, indent)
	_, _ = p.wait(math.MaxInt)
	if !p.ok {
		return "", nil, false
	}
	if !settled {
		// The decoder moved its output, or a token longer than the
		// window was cut: the answer comes from the whole text.
		x = jsonTextLines(p.text, indent)
	}
	return p.text, x, true
}

// jsonTextLines is the pretty-printed lines of text when, trimmed, it is
// a valid JSON object or array; else nil.
func jsonTextLines(text, indent string) *Indented {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") && !strings.HasPrefix(t, "[") {
		return nil
	}
	x, ok := ValidIndentLines(unsafe.Slice(unsafe.StringData(t), len(t)), indent)
	if !ok {
		return nil
	}
	return x
}

// followIndent is jsonTextLines of the text p decodes, read as it is
// decoded. settled is false when its answer does not count (the output
// moved, or the end of what was decoded cut a token), and the whole text
// must be read again once decoded.
func followIndent(p *progressive, indent string) (x *Indented, settled bool) {
	// Where the value starts: after the leading white space, a rune not
	// cut by the end of what is decoded.
	view, final := p.wait(followWindow)
	if view == nil {
		return nil, final
	}
	start := len(view) - len(bytes.TrimLeftFunc(view, unicode.IsSpace))
	if !final && start > len(view)-utf8.UTFMax {
		return nil, false // white space for a whole window: not worth following
	}
	if start == len(view) || view[start] != '{' && view[start] != '[' {
		return nil, true // not an object or array
	}
	// end is the value's end once the whole text is known (TrimSpace's).
	end := func(all []byte) []byte {
		return all[start : start+len(bytes.TrimRightFunc(all[start:], unicode.IsSpace))]
	}
	if final {
		view = end(view)
	} else {
		view = view[start:]
	}
	x = &Indented{src: view, tail: []string{""}, indent: indent, chunkAt: -1}
	cut := false
	more := func(_, need int) ([]byte, int, bool) {
		all, final := p.wait(start + need)
		switch {
		case all == nil:
			cut = true // moved or failed: nothing more to follow
			return nil, 0, true
		case final:
			return end(all), 0, true
		}
		return all[start:], 0, false
	}
	ok, sawFinal := x.indexValid(view, final, more)
	switch {
	case cut:
		return nil, false
	case !ok:
		// Invalid where the whole text was known; else maybe a token
		// the end of the decoded part cut.
		return nil, sawFinal
	}
	return x, true
}
