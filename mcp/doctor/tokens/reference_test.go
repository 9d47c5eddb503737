package tokens_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp/doctor/tokens"
)

// referenceLines reads a JSON-lines file of testdata/ made by
// testdata/make-reference.mjs.
func referenceLines(t *testing.T, name string) [][]byte {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		lines = append(lines, append([]byte(nil), sc.Bytes()...))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

type corpusText struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// corpus reads testdata/corpus.jsonl: at least 3,000 texts with OpenAI's
// own tokenizer's counts (npm tiktoken, the version it names).
func corpus(t *testing.T) (version string, texts []corpusText) {
	t.Helper()
	lines := referenceLines(t, "corpus.jsonl")
	var meta struct {
		Tokenizer, Version, Encoding string
		Texts                        int
	}
	if err := json.Unmarshal(lines[0], &meta); err != nil || meta.Encoding != tokens.Encoding || meta.Texts != len(lines)-1 || meta.Texts < 3000 {
		t.Fatalf("corpus header %s (%v): want %s and at least 3,000 texts, as many as lines", lines[0], err, tokens.Encoding)
	}
	for i, line := range lines[1:] {
		var c corpusText
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("line %d: %v", i+2, err)
		}
		texts = append(texts, c)
	}
	return meta.Version, texts
}

// Every text of the corpus counts what OpenAI's own tokenizer counts:
// whitespace runs, blank indented lines, CJK, emoji, scripts with
// combining marks, code.
func TestCountsEqualTiktoken(t *testing.T) {
	version, texts := corpus(t)
	wrong := 0
	for i, c := range texts {
		if got := tokens.Count(c.Text); got != c.Tokens {
			wrong++
			if wrong <= 10 {
				t.Errorf("text %d %q: %d tokens, tiktoken %s counts %d", i+1, c.Text, got, version, c.Tokens)
			}
		}
	}
	if wrong > 0 {
		t.Errorf("%d of %d texts counted unlike tiktoken %s", wrong, len(texts), version)
	}
}

// The count through the pattern's own split, which Count takes only for
// text with a blank run between newlines, is right for every text: the
// split, the library's count of what lies between those runs, and the
// merge of the runs.
func TestSplitCountsEqualTiktoken(t *testing.T) {
	version, texts := corpus(t)
	runs := 0
	for i, c := range texts {
		got, ok := tokens.CountByPattern(c.Text)
		if !ok || got != c.Tokens {
			t.Errorf("text %d %q: %d tokens (%v), tiktoken %s counts %d", i+1, c.Text, got, ok, version, c.Tokens)
		}
		if tokens.HasSplitRun(c.Text) {
			runs++
		}
	}
	// The corpus must hold the texts the library alone miscounts.
	if runs < 100 {
		t.Errorf("only %d texts have a whitespace run between newlines", runs)
	}
}

type reencodeCase struct {
	Raw       string `json:"raw"`
	Client    string `json:"client"`
	Tokens    int    `json:"tokens"`
	RawTokens int    `json:"raw_tokens"`
}

func reencodeCases(t *testing.T) []reencodeCase {
	t.Helper()
	var cases []reencodeCase
	for i, line := range referenceLines(t, "reencode.jsonl") {
		var c reencodeCase
		if err := json.Unmarshal(line, &c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		cases = append(cases, c)
	}
	if len(cases) < 5 {
		t.Fatalf("%d cases in reencode.jsonl", len(cases))
	}
	return cases
}

// Reencode writes what JSON.stringify(JSON.parse(raw)) writes, byte for
// byte, and it costs what tiktoken counts of that: escapes decoded,
// Python's separators gone, numbers as JavaScript prints them, repeated
// and index keys in JavaScript's order, lone surrogates kept.
func TestReencodeIsJSONStringify(t *testing.T) {
	for i, c := range reencodeCases(t) {
		got, ok := tokens.Reencode([]byte(c.Raw))
		if !ok || string(got) != c.Client {
			t.Errorf("case %d: %s\n got %s (%v)\nwant %s", i+1, c.Raw, got, ok, c.Client)
			continue
		}
		if n := tokens.Count(string(got)); n != c.Tokens {
			t.Errorf("case %d: %d tokens, tiktoken counts %d", i+1, n, c.Tokens)
		}
	}
}

// A tool a server writes with \u escapes (Python's json.dumps) costs what
// the same tool costs written plainly: what a client that decodes and
// re-encodes the list sends, as tiktoken counts it. Counted on the escapes
// it cost nearly three times as much.
func TestEscapedToolCostsWhatTheClientSends(t *testing.T) {
	cases := reencodeCases(t)
	escaped, plain := cases[0], cases[1]
	if !strings.Contains(escaped.Raw, `\u5929`) || strings.Contains(plain.Raw, `\u`) || escaped.Client != plain.Client {
		t.Fatalf("the first two cases are not the CJK tool escaped and plain:\n%s\n%s", escaped.Raw, plain.Raw)
	}
	if escaped.RawTokens < 2*escaped.Tokens {
		t.Fatalf("the escapes cost %d tokens, the re-encoded tool %d: the case shows nothing", escaped.RawTokens, escaped.Tokens)
	}
	for _, c := range []reencodeCase{escaped, plain} {
		if n := tokens.Tool(json.RawMessage(c.Raw)); n != c.Tokens {
			t.Errorf("tool %.60s…: %d tokens, the client's text %d", c.Raw, n, c.Tokens)
		}
		if def, _ := tokens.Definition(json.RawMessage(c.Raw)); string(def) != c.Client {
			t.Errorf("definition\n got %s\nwant %s", def, c.Client)
		}
	}
	list := tokens.List([]json.RawMessage{json.RawMessage(escaped.Raw), json.RawMessage(plain.Raw)})
	if want := tokens.Count("[" + plain.Client + "," + plain.Client + "]"); list.Total != want || list.Tools[0] != list.Tools[1] {
		t.Errorf("list of the tool escaped and plain: %+v, want %d in all and the same for each", list, want)
	}
	// A result's structured content is given to the model re-encoded too.
	res := `{"content":[],"structuredContent":` + escaped.Raw + `}`
	if c := tokens.Result(json.RawMessage(res), tokens.MaxCounted); c.Tokens != escaped.Tokens {
		t.Errorf("structured result: %d tokens, the client's text %d", c.Tokens, escaped.Tokens)
	}
}

// Reencode is linear however a value is built: a wide object, one with a
// repeated key among many, a deep one (left as sent past its bound).
func TestReencodeIsBoundedOnHostileValues(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("{")
	for i := range 200_000 {
		if i > 0 {
			wide.WriteString(",")
		}
		wide.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i))
	}
	wide.WriteString(`,"k7":"again","12":"index"}`)
	deep := strings.Repeat(`{"a":[`, 20_000) + strings.Repeat(`]}`, 20_000)
	for name, raw := range map[string]string{"wide": wide.String(), "deep": deep} {
		start := time.Now()
		out := tokens.ClientJSON([]byte(raw))
		if d := time.Since(start); d > 5*time.Second || len(out) == 0 {
			t.Errorf("%s: %v, %d bytes", name, d, len(out))
		}
	}
	out, ok := tokens.Reencode([]byte(wide.String()))
	if !ok || !strings.HasPrefix(string(out), `{"12":"index","k0":0,`) || !strings.Contains(string(out), `"k7":"again","k8":8`) {
		t.Errorf("wide object re-encoded as %.80s…", out)
	}
	if _, ok := tokens.Reencode([]byte(deep)); ok {
		t.Error("a value nested past the bound was re-encoded")
	}
}
