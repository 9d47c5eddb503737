package doctor

import (
	"fmt"
	"strconv"
)

// NameShown is how many characters of a name a server chose (a tool's) a
// finding or a report quotes. The rules that judge a name read it whole;
// what they say about it needs no more than its start and its length, and
// a 10 MB name quoted whole in each finding, each rule's message and the
// report weighed many times its size.
const NameShown = 200

// CutName is name's first [NameShown] characters, and whether that is all
// of it.
func CutName(name string) (cut string, whole bool) {
	if len(name) <= NameShown {
		return name, true
	}
	n := 0
	for i := range name {
		if n == NameShown {
			return name[:i], false
		}
		n++
	}
	return name, true
}

// QuoteName is name quoted for a message: whole when it is short, else
// its start quoted and its length, `"abc…"… (10000000 bytes)`.
func QuoteName(name string) string {
	cut, whole := CutName(name)
	if whole {
		return strconv.Quote(name)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(cut), len(name))
}
