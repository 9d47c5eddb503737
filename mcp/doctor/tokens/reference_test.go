package tokens_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

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
		got, ok := tokens.CountSplit(c.Text)
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
