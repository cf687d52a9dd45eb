//go:build race

package render

// raceOverhead is the writable memory the race detector's runtime needs
// beyond a program's own; the sandbox adds it to the memory limit of a
// child that is a race-enabled build (tests only).
const raceOverhead = 512 << 20
