//go:build race

package panes

const raceEnabled = true
