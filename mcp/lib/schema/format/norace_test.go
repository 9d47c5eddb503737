//go:build !race

package format

// raceEnabled loosens the hostile-input time budget under the race
// detector, which slows the parsers several times over.
const raceEnabled = false
