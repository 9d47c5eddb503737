package mcp

// SetKeepAliveLimit lowers the keep-alive limit of a request's answer
// stream for a test; the returned function restores it.
func SetKeepAliveLimit(n int64) (restore func()) {
	old := sseMaxKeepAlives
	sseMaxKeepAlives = n
	return func() { sseMaxKeepAlives = old }
}
