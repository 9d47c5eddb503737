//go:build !race

package cli

// raceEnabled loosens wall-clock budgets under the race detector, which
// slows the program several times over; the plain run enforces them as
// written.
const raceEnabled = false
