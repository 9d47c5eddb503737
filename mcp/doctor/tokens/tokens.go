// Package tokens counts what a server's tools cost a model: each tool's
// definition and the whole list, as a client puts them in front of its
// model, and what a tool's result adds to the context.
//
// The count is OpenAI's o200k_base encoding (the GPT-4o and later
// tokenizer): github.com/tiktoken-go/tokenizer's split of the text into
// pieces, then tiktoken's byte-pair merge of each piece over the
// vocabulary, which is compiled into the binary as a table read in place
// (table.go): nothing is downloaded and nothing is built at start or on
// the first count. For a model whose tokenizer is not public (Claude,
// Gemini) the figure is an estimate; [Estimate] says so in words a view
// can show.
//
// What is counted is a JSON text as a client sends it on: a tool's
// definition is its members name, title, description, inputSchema,
// outputSchema and annotations, in the server's order, decoded and encoded
// again as JavaScript's JSON.stringify does ([Definition], [Reencode]), so
// a server's escapes ("\u5929" for "天") cost what the character costs;
// the list is the JSON array of those definitions. Clients wrap the same
// fields in their own prompt format, which none of them publishes, so the
// figure is close to, not equal to, what a client bills.
package tokens

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Encoding is the tokenizer's name.
const Encoding = "o200k_base"

// Estimate is what a view says about the figures.
const Estimate = "OpenAI's o200k_base tokenizer; an estimate for models whose tokenizer is not public"

// MaxCounted bounds the text one count reads: a 20 MB result would take
// seconds, and the tokenizer's pattern works on runes (four bytes of
// memory for each byte of ASCII text). Beyond the bound the first bytes
// are counted and the cost says it is partial. check counts up to
// MaxCounted; the TUI, which must not hold a huge result twice, up to
// ViewCounted.
const (
	MaxCounted  = 4 << 20
	ViewCounted = 256 << 10
)

// countChunk is the most Count splits at once: the split's matcher holds
// the text as runes (four bytes a byte) and the merge of a piece about
// twenty bytes a byte of it, so a 10 MB tool name, one piece, would hold
// hundreds of megabytes. Longer text
// is counted a chunk at a time, cut before a white space where there is
// one (where the tokenizer's pieces begin, so the count is the same), or
// else inside a run of 256 KiB without any, which nothing tokenizes as
// one word anyway.
const countChunk = 256 << 10

// Count is the number of o200k_base tokens in s, all of it (callers bound
// what they pass; see [MaxCounted]).
func Count(s string) int {
	n := 0
	for len(s) > countChunk {
		cut := strings.LastIndexAny(s[:countChunk], " \t\r\n")
		if cut > 0 && s[cut] == '\n' && s[cut-1] == '\r' {
			cut-- // a CRLF is one piece
		}
		if cut <= 0 {
			cut = countChunk
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		n += countAll(s[:cut])
		s = s[cut:]
	}
	return n + countAll(s)
}

// countAll is Count of s in one split.
func countAll(s string) int {
	if s == "" {
		return 0
	}
	if !o200kTable.valid {
		return len(s)
	}
	s = withoutDelete(s)
	var n int
	var ok bool
	if hasSplitRun(s) {
		n, ok = countSplit(s)
	} else {
		n, ok = countPieces(s, librarySplitter())
	}
	if ok {
		return n
	}
	// The split pattern fails only when its backtracking gives up
	// (regexp2 has no timeout set here, so it does not): count the bytes
	// instead of reporting nothing.
	return len(s)
}

// definitionMembers are the members of a tool a client gives its model.
var definitionMembers = map[string]bool{
	"name": true, "title": true, "description": true,
	"inputSchema": true, "outputSchema": true, "annotations": true,
}

// Definition is the JSON text counted for one tool: the object raw with
// only the definition members (see the package doc), re-encoded as a
// client does ([Reencode]). ok is false when raw is not an object.
func Definition(raw json.RawMessage) (def []byte, ok bool) {
	if def, ok := reencodeFiltered(raw, func(key string) bool { return definitionMembers[key] }); ok {
		return def, true
	}
	return compactedDefinition(raw)
}

// compactedDefinition is the definition of a tool that is not JSON
// throughout (a client would refuse it; its cost is still shown): the
// members as far as they can be read, each compacted.
func compactedDefinition(raw json.RawMessage) (def []byte, ok bool) {
	out := []byte{'{'}
	ok = jsonview.Each(raw, func(k []byte, v json.RawMessage) bool {
		if !definitionMembers[jsonview.Key(k)] {
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, '"'), k...), '"', ':')
		out = append(out, compact(v)...)
		return true
	})
	if !ok {
		return nil, false
	}
	return append(out, '}'), true
}

// ListText is the JSON array of the definitions of tools (raw tool
// objects; one that is not an object is left out).
func ListText(tools []json.RawMessage) []byte {
	out := []byte{'['}
	for _, t := range tools {
		def, ok := Definition(t)
		if !ok {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, def...)
	}
	return append(out, ']')
}

// Tool is the cost of one tool's definition.
func Tool(raw json.RawMessage) int {
	def, ok := Definition(raw)
	if !ok {
		return 0
	}
	return countBytes(def)
}

// countBytes is Count of text made here for counting and dropped after:
// it is read in place, not copied into a string first (a definition is
// about as big as the tool).
func countBytes(text []byte) int {
	return Count(unsafe.String(unsafe.SliceData(text), len(text)))
}

// ToolCost is one tool's name and the tokens of its definition.
type ToolCost struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// NameBytes is the name's length when Name is only its start (a
	// report quotes a long name cut).
	NameBytes int `json:"nameBytes,omitempty"`
}

// ListCost is what a tool list costs: the list as one text (Total) and
// each tool on its own, in the list's order.
type ListCost struct {
	Total int        `json:"total"`
	Tools []ToolCost `json:"tools"`
}

// List counts a tool list (raw tool objects).
func List(tools []json.RawMessage) ListCost {
	c := ListCost{Total: countBytes(ListText(tools)), Tools: make([]ToolCost, 0, len(tools))}
	for _, t := range tools {
		name := ""
		if v, ok := jsonview.Member(t, "name"); ok {
			// A view of the tool's bytes, not a copy: a report keeps
			// only the start of a long name (ToolCost.NameBytes).
			name, _ = jsonview.StringView(v)
		}
		c.Tools = append(c.Tools, ToolCost{Name: name, Tokens: Tool(t)})
	}
	return c
}

// Costliest is the n costliest tools, the costliest first (ties in list
// order).
func (c ListCost) Costliest(n int) []ToolCost {
	out := append([]ToolCost(nil), c.Tools...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Tokens > out[j].Tokens })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// ResultCost is what a tool result puts in the model's context.
type ResultCost struct {
	// Tokens are those of the text the model receives: each text block,
	// each embedded resource's text, and the structuredContent when no
	// content block carries text (a client then gives the model the
	// structured value).
	Tokens int `json:"tokens"`
	// Media counts the image and audio blocks, which models bill by their
	// own measure (pixels, seconds), not by these tokens.
	Media int `json:"media,omitempty"`
	// Partial is set when the text was longer than the bound: Tokens are
	// those of its first bytes, and Estimated the whole's, in proportion
	// to its length.
	Partial   bool `json:"partial,omitempty"`
	Estimated int  `json:"estimated,omitempty"`
}

// Result counts a tools/call result as sent, reading at most limit bytes
// of its text (MaxCounted or ViewCounted).
func Result(raw json.RawMessage, limit int) ResultCost {
	var text []byte
	var c ResultCost
	// whole is the text's length as sent, escapes and all, and read how
	// much of it was counted: they differ when the text is over limit.
	whole, read := 0, 0
	add := func(s string) {
		if len(text) > 0 {
			text = append(text, '\n')
		}
		text = append(text, s...)
	}
	addString := func(v json.RawMessage) {
		whole += len(v)
		room := limit - len(text)
		if room <= 0 {
			return
		}
		s, n := stringPrefix(v, room)
		read += n
		add(s)
	}
	if content, ok := jsonview.Member(raw, "content"); ok {
		blocks, _ := jsonview.Array(content)
		for _, b := range blocks {
			typ, _ := jsonview.Member(b, "type")
			kind, _ := jsonview.String(typ)
			switch kind {
			case "text":
				if v, ok := jsonview.Member(b, "text"); ok {
					addString(v)
				}
			case "resource":
				if r, ok := jsonview.Member(b, "resource"); ok {
					if v, ok := jsonview.Member(r, "text"); ok {
						addString(v)
					}
				}
			case "resource_link":
				// The model sees the link itself: its URI and name.
				whole += len(b)
				read += len(b)
				add(string(ClientJSON(b)))
			case "image", "audio":
				c.Media++
			}
		}
	}
	if len(text) == 0 {
		if sc, ok := jsonview.Member(raw, "structuredContent"); ok && !bytes.Equal(bytes.TrimSpace(sc), []byte("null")) {
			whole, read = len(sc), len(sc)
			if len(sc) > limit {
				// Its first bytes as sent: a value cut short cannot be
				// decoded, and the whole is only estimated from them.
				text, read = sc[:limit], limit
			} else {
				text = ClientJSON(sc)
			}
		}
	}
	c.Tokens = Count(string(text))
	if read < whole {
		c.Partial = true
		c.Estimated = int(float64(c.Tokens) * float64(whole) / float64(max(read, 1)))
	}
	return c
}

// stringPrefix decodes at most about n bytes of the JSON string v (all of
// it when it is short, else a prefix cut where no escape is split) and
// says how many of v's bytes it read.
func stringPrefix(v json.RawMessage, n int) (string, int) {
	v = bytes.TrimSpace(v)
	if len(v) <= n+2 {
		s, _ := jsonview.StringView(v)
		return s, len(v)
	}
	for cut := n + 1; cut > 1 && cut > n-8; cut-- {
		if s, ok := jsonview.String(append(append([]byte(nil), v[:cut]...), '"')); ok {
			return s, cut
		}
	}
	return "", 0
}

func compact(v []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}
