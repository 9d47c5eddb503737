//go:build !race

package calls

// raceEnabled loosens wall-clock budgets under the race detector, which
// slows the program several times over; the plain run enforces them as
// written.
const raceEnabled = false
