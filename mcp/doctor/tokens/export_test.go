package tokens

// CountSplit is countSplit for the tests: the count through the pattern's
// own split, whether or not the text needs it.
func CountSplit(s string) (int, bool) { return countSplit(s) }

// HasSplitRun is hasSplitRun for the tests.
func HasSplitRun(s string) bool { return hasSplitRun(s) }
