package tokens

import _ "embed"

// The o200k_base vocabulary as a hash table compiled into the binary.
//
// tiktoken-go/tokenizer keeps the vocabulary as a Go map literal, which
// the first count builds: about 17 ms and 200,000 map entries on the heap,
// paid by every process that counts (check, the TUI). The same tokens and
// ranks are laid out here once, by the tests from the library's own table
// (TestO200kTableIsTheLibrarys; -update writes it again), as an
// open-addressing table read in place: a count starts at once, and the
// table's pages stay file-backed, shared and out of the Go heap.
//
// Layout, all integers little-endian uint32:
//
//	"o200k_base\n" magic (tableMagic)
//	ranks         how many ranks there are (R)
//	slotBits      the table has 1<<slotBits slots
//	offsets[R+1]  token r is blob[offsets[r]:offsets[r+1]]; empty for an
//	              unused rank
//	slots[...]    0 for an empty slot, else a rank + 1, placed by
//	              tokenHash and linear probing
//	blob          the tokens' bytes, by rank
//
//go:embed o200k_base.table
var tableData string

const tableMagic = "o200k_base\n"

// vocabTable reads tableData in place.
type vocabTable struct {
	data      string
	ranks     int
	slotMask  uint32
	offsetsAt int // where offsets[0] is
	slotsAt   int
	blobAt    int
	valid     bool
}

var o200kTable = readTable(tableData)

// readTable checks data's header and sizes, which the lookups then trust;
// a table that fails (a build that lost the file) is not valid, and Count
// falls back on the bytes.
func readTable(data string) vocabTable {
	t := vocabTable{data: data}
	head := len(tableMagic) + 8
	if len(data) < head || data[:len(tableMagic)] != tableMagic {
		return t
	}
	t.ranks = int(le32(data, len(tableMagic)))
	bits := le32(data, len(tableMagic)+4)
	if bits > 24 || t.ranks <= 0 || t.ranks > 1<<22 {
		return t
	}
	t.slotMask = 1<<bits - 1
	t.offsetsAt = head
	t.slotsAt = t.offsetsAt + 4*(t.ranks+1)
	t.blobAt = t.slotsAt + 4*(1<<bits)
	if t.blobAt > len(data) || t.blobAt+int(le32(data, t.slotsAt-4)) != len(data) {
		return t
	}
	t.valid = true
	return t
}

func le32(s string, at int) uint32 {
	return uint32(s[at]) | uint32(s[at+1])<<8 | uint32(s[at+2])<<16 | uint32(s[at+3])<<24
}

// token is rank r's bytes.
func (t *vocabTable) token(r uint32) string {
	at := t.offsetsAt + 4*int(r)
	return t.data[t.blobAt+int(le32(t.data, at)) : t.blobAt+int(le32(t.data, at+4))]
}

// rank is piece's rank, if piece is a token.
func (t *vocabTable) rank(piece string) (uint32, bool) {
	if piece == "" {
		return 0, false
	}
	i := tokenHash(piece) & t.slotMask
	for range t.slotMask + 1 { // a table is never full; a damaged one ends here
		v := le32(t.data, t.slotsAt+4*int(i))
		if v == 0 || int(v) > t.ranks {
			return 0, false
		}
		if t.token(v-1) == piece {
			return v - 1, true
		}
		i = (i + 1) & t.slotMask
	}
	return 0, false
}

// tokenHash is 32-bit FNV-1a: fixed, so the table written by the tests is
// the one read here.
func tokenHash(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
