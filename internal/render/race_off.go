//go:build !race

package render

// raceOverhead: see race_on.go.
const raceOverhead = 0
