package tokens

// CountByPattern is Count through the pattern's own split of the whole
// text, whether or not the text needs it.
func CountByPattern(s string) (int, bool) { return countByPattern(withoutDelete(s)) }

// HasSplitRun is hasSplitRun for the tests.
func HasSplitRun(s string) bool { return hasSplitRun(s) }
