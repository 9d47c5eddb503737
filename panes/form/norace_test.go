//go:build !race

package form

const raceEnabled = false
