package tokens

import "container/heap"

// noRank marks a pair of parts that is not a token.
const noRank = ^uint32(0)

// mergeHeapFrom is the piece length from which pieceTokens finds each
// merge with a heap rather than a scan of all pairs (quadratic in the
// piece's length).
const mergeHeapFrom = 96

// pieceTokens is how many tokens tiktoken's byte-pair merge makes of one
// piece of the split: one when the piece is a token, else its bytes,
// merging the adjacent pair of the lowest rank (the leftmost of equals)
// until no pair is a token.
func (t *vocabTable) pieceTokens(piece string) int {
	if _, ok := t.rank(piece); ok {
		return 1
	}
	if len(piece) < mergeHeapFrom {
		return t.mergeScan(piece)
	}
	return t.mergeHeap(piece)
}

// mergeScan is pieceTokens' merge for a short piece: a scan of the pairs
// for each merge.
func (t *vocabTable) mergeScan(piece string) int {
	var boundsArr [mergeHeapFrom + 1]int32
	var ranksArr [mergeHeapFrom + 1]uint32
	// bounds[i] is where part i starts, the last len(piece); ranks[i] is
	// the rank of parts i and i+1 merged.
	bounds, ranks := boundsArr[:len(piece)+1], ranksArr[:len(piece)+1]
	pairRank := func(i int) uint32 {
		if i+2 >= len(bounds) {
			return noRank
		}
		if r, ok := t.rank(piece[bounds[i]:bounds[i+2]]); ok {
			return r
		}
		return noRank
	}
	for i := range bounds {
		bounds[i] = int32(i)
	}
	for i := range ranks {
		ranks[i] = pairRank(i)
	}
	for len(bounds) > 2 {
		best, at := noRank, -1
		for i, r := range ranks[:len(bounds)-2] {
			if r < best {
				best, at = r, i
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
		ranks = append(ranks[:at+1], ranks[at+2:]...)
		ranks[at] = pairRank(at)
		if at > 0 {
			ranks[at-1] = pairRank(at - 1)
		}
	}
	return len(bounds) - 1
}

// mergeHeap is pieceTokens' merge for a long piece: the parts in a linked
// list, the pairs that are tokens in a heap by rank and then position
// (the leftmost of equals, as the scan takes), entries made stale by a
// merge skipped when they come up.
func (t *vocabTable) mergeHeap(piece string) int {
	n := int32(len(piece))
	type node struct {
		prev, next int32 // -1 at the ends
		rank       uint32
	}
	nodes := make([]node, n+1)
	for i := range nodes {
		nodes[i] = node{prev: int32(i) - 1, next: int32(i) + 1, rank: noRank}
	}
	nodes[n].next = -1
	pairRank := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		if r, ok := t.rank(piece[i:nodes[j].next]); ok {
			return r
		}
		return noRank
	}
	pairs := make(pairHeap, 0, n)
	for i := int32(0); i+2 <= n; i++ {
		if r := pairRank(i); r != noRank {
			nodes[i].rank = r
			pairs = append(pairs, uint64(r)<<32|uint64(i))
		}
	}
	heap.Init(&pairs)
	parts := int(n)
	for pairs.Len() > 0 {
		key := heap.Pop(&pairs).(uint64)
		r, i := uint32(key>>32), int32(uint32(key))
		if nodes[i].rank != r {
			continue // merged away, or its pair changed since
		}
		j := nodes[i].next
		nodes[i].next = nodes[j].next
		if k := nodes[j].next; k >= 0 {
			nodes[k].prev = i
		}
		nodes[j].rank = noRank
		parts--
		if nodes[i].rank = pairRank(i); nodes[i].rank != noRank {
			heap.Push(&pairs, uint64(nodes[i].rank)<<32|uint64(i))
		}
		if p := nodes[i].prev; p >= 0 {
			if nodes[p].rank = pairRank(p); nodes[p].rank != noRank {
				heap.Push(&pairs, uint64(nodes[p].rank)<<32|uint64(p))
			}
		}
	}
	return parts
}

// pairHeap holds rank<<32 | position, least first.
type pairHeap []uint64

func (h pairHeap) Len() int           { return len(h) }
func (h pairHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h pairHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *pairHeap) Push(x any)        { *h = append(*h, x.(uint64)) }
func (h *pairHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
