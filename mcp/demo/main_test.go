package demo_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The demo server starts goroutines of its own (the clock ticker and session
// watchers); none may outlive the sessions that caused them.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
