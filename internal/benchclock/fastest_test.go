package benchclock

import (
	"testing"
	"time"
)

func TestFastestKeepsTheSmallestOfEach(t *testing.T) {
	var f Fastest
	f.Run(func() { time.Sleep(2 * time.Millisecond) })
	first := f.Wall
	f.Run(func() {})
	if f.Wall >= first || f.Wall == 0 {
		t.Errorf("wall %v after a run of %v and an empty one", f.Wall, first)
	}
	if Ratio(time.Second, 0) != 0 || Ratio(3*time.Second, time.Second) != 3 {
		t.Error("Ratio")
	}
}
