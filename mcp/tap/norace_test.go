//go:build !race

package tap

// raceEnabled loosens budgets under the race detector, whose binaries run
// slower and hold several times the memory; the plain run enforces them.
const raceEnabled = false
