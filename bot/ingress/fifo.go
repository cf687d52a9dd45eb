package ingress

// fifo is a first-in first-out queue backed by a slice whose storage is
// reused: popped slots are cleared and the live items are moved down before
// the slice would grow.
type fifo[T any] struct {
	items []T
	head  int
}

func (f *fifo[T]) len() int { return len(f.items) - f.head }

func (f *fifo[T]) push(v T) {
	if len(f.items) == cap(f.items) && f.head > 0 {
		n := copy(f.items, f.items[f.head:])
		clear(f.items[n:])
		f.items = f.items[:n]
		f.head = 0
	}
	f.items = append(f.items, v)
}

func (f *fifo[T]) pop() (T, bool) {
	var zero T
	if f.head == len(f.items) {
		return zero, false
	}
	v := f.items[f.head]
	f.items[f.head] = zero
	f.head++
	if f.head == len(f.items) {
		f.items = f.items[:0]
		f.head = 0
	}
	return v, true
}
