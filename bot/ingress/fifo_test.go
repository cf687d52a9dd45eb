package ingress

import (
	"math/rand/v2"
	"testing"
)

// TestFIFOMatchesSlice drives a fifo and a plain slice with the same random
// pushes and pops.
func TestFIFOMatchesSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var f fifo[int]
	var model []int
	for i := range 100000 {
		if rng.IntN(3) < 2 {
			f.push(i)
			model = append(model, i)
		} else {
			got, ok := f.pop()
			if len(model) == 0 {
				if ok {
					t.Fatalf("pop on empty fifo gave %d", got)
				}
				continue
			}
			if !ok || got != model[0] {
				t.Fatalf("pop = %d, %v; want %d", got, ok, model[0])
			}
			model = model[1:]
		}
		if f.len() != len(model) {
			t.Fatalf("len = %d, want %d", f.len(), len(model))
		}
	}
}
