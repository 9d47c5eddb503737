//go:build !race

package mcp_test

// raceEnabled loosens wall-clock budgets under the race detector, which
// slows the client several times over; the plain run enforces them.
const raceEnabled = false
