//go:build !linux

package mcp

// mappedLine is not used where mappings of reserved room are not to be
// relied on: a long line is read into heap chunks and joined.
type mappedLine struct{}

func newMappedLine(int) *mappedLine { return nil }
func (*mappedLine) write([]byte)    {}
func (*mappedLine) kept() []byte    { return nil }
func (*mappedLine) copied() []byte  { return nil }
