//go:build race

package termimage

const raceEnabled = true
