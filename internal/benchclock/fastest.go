package benchclock

import "time"

// Fastest is the fastest of the runs measured so far, wall-clock and CPU
// time each on its own.
type Fastest struct{ Wall, CPU time.Duration }

// Run runs f and keeps its times where they are the fastest yet.
func (t *Fastest) Run(f func()) {
	w0, c0 := time.Now(), CPU()
	f()
	w, c := time.Since(w0), CPU()-c0
	if t.Wall == 0 || w < t.Wall {
		t.Wall = w
	}
	if t.CPU == 0 || c < t.CPU {
		t.CPU = c
	}
}

// Ratio is a/b, 0 when b is 0 (a figure not measured).
func Ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// MS is d in milliseconds, for printing.
func MS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
