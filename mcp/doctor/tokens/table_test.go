package tokens

import (
	"encoding/binary"
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"
)

var update = flag.Bool("update", false, "write o200k_base.table again from the library's vocabulary")

// library is tiktoken-go's own codec, whose counts Count must equal.
var library = sync.OnceValue(codec.NewO200kBase)

// libraryTokens is the library's vocabulary by rank ("" for a rank with
// no token), read through its Decode: it keeps the table itself private.
func libraryTokens(t *testing.T) []string {
	t.Helper()
	c := library()
	var toks []string
	// o200k_base's ranks end below 2^18; Decode says which are unused.
	for id := range 1 << 18 {
		tok, err := c.Decode([]uint{uint(id)})
		if err != nil || tok == "" {
			continue
		}
		for len(toks) < id {
			toks = append(toks, "")
		}
		toks = append(toks, tok)
	}
	if len(toks) < 199_000 {
		t.Fatalf("decoded %d tokens: o200k_base has about 200,000", len(toks))
	}
	return toks
}

// buildTable lays out tokens (by rank; "" for an unused rank) as
// readTable reads them, with the slots at most half full.
func buildTable(tokens []string) []byte {
	bits := uint32(1)
	for 1<<bits < 2*len(tokens) {
		bits++
	}
	mask := uint32(1)<<bits - 1
	out := []byte(tableMagic)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(tokens)))
	out = binary.LittleEndian.AppendUint32(out, bits)
	size := 0
	for _, tok := range tokens {
		out = binary.LittleEndian.AppendUint32(out, uint32(size))
		size += len(tok)
	}
	out = binary.LittleEndian.AppendUint32(out, uint32(size))
	slots := make([]uint32, 1<<bits)
	for r, tok := range tokens {
		if tok == "" {
			continue
		}
		i := tokenHash(tok) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = uint32(r) + 1
	}
	for _, v := range slots {
		out = binary.LittleEndian.AppendUint32(out, v)
	}
	for _, tok := range tokens {
		out = append(out, tok...)
	}
	return out
}

// The table compiled in is the library's vocabulary: every token at its
// rank, and nothing else (a lookup of each token's neighbours in the
// blob, which are not tokens, misses).
func TestO200kTableIsTheLibrarys(t *testing.T) {
	toks := libraryTokens(t)
	if *update {
		if err := os.WriteFile("o200k_base.table", buildTable(toks), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("wrote o200k_base.table")
	}
	table := readTable(tableData)
	if *update {
		data, err := os.ReadFile("o200k_base.table")
		if err != nil {
			t.Fatal(err)
		}
		table = readTable(string(data))
	}
	if !table.valid {
		t.Fatal("the compiled-in table does not read")
	}
	if table.ranks != len(toks) {
		t.Fatalf("the table has %d ranks, the library %d", table.ranks, len(toks))
	}
	isToken := make(map[string]bool, len(toks))
	for _, tok := range toks {
		isToken[tok] = true
	}
	for r, tok := range toks {
		if got := table.token(uint32(r)); got != tok {
			t.Fatalf("rank %d is %q, the library's %q", r, got, tok)
		}
		if tok == "" {
			continue
		}
		if got, ok := table.rank(tok); !ok || got != uint32(r) {
			t.Fatalf("%q: rank %d (%v), the library's %d", tok, got, ok, r)
		}
		if longer := tok + "\x00"; !isToken[longer] {
			if got, ok := table.rank(longer); ok {
				t.Fatalf("%q is not a token, the table gives rank %d", longer, got)
			}
		}
	}
	if _, ok := table.rank(""); ok {
		t.Error("the empty string has a rank")
	}
}

// A damaged table is not read: Count then gives the bytes, not a wrong
// count or a panic.
func TestDamagedTableIsNotValid(t *testing.T) {
	for name, data := range map[string]string{
		"empty":     "",
		"no header": "not a table at all, just some bytes",
		"cut":       tableData[:len(tableData)/2],
		"longer":    tableData + "x",
		"huge bits": tableMagic + "\x01\x00\x00\x00\xff\x00\x00\x00",
	} {
		if readTable(data).valid {
			t.Errorf("%s: read as valid", name)
		}
	}
	if !o200kTable.valid {
		t.Fatal("the compiled-in table is not valid")
	}
}
