// Package benchclock measures benchmark runs on a busy machine: the
// fastest of several runs, in wall-clock time and in CPU time (user and
// system, the collector's included), which other work on the machine
// disturbs far less, and a process's own peak memory. Benchmarks that
// judge a ratio to a floor measured in the same run (render, the update
// merge) alternate the two and compare the fastest.
package benchclock
