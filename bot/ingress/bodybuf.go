package ingress

import (
	"math/bits"
	"sync"
)

// Request bodies up to maxPooledBody are read into recycled buffers: at
// thousands of deliveries a second, allocating each body (GitHub's are
// mostly 5 to 50 KB) is most of the garbage the server would make, and
// garbage collection then dominates delivery latency. Larger bodies are
// allocated and left to the collector.
const (
	minBodyClassBits = 12 // 4 KiB
	maxBodyClassBits = 17 // 128 KiB
	maxPooledBody    = 1 << maxBodyClassBits
)

// bodyBuffer is a buffer from bodyBuffers.
type bodyBuffer struct {
	data  []byte
	class int // index in bodyBuffers.classes, -1 if not pooled
}

// bodyBuffers is a set of pools of buffers whose capacity is a power of two.
type bodyBuffers struct {
	classes [maxBodyClassBits - minBodyClassBits + 1]sync.Pool
}

// get returns a buffer whose data has length n.
func (p *bodyBuffers) get(n int) *bodyBuffer {
	if n > maxPooledBody {
		return &bodyBuffer{data: make([]byte, n), class: -1}
	}
	class := 0
	if n > 1<<minBodyClassBits {
		class = bits.Len(uint(n-1)) - minBodyClassBits
	}
	if b, ok := p.classes[class].Get().(*bodyBuffer); ok {
		b.data = b.data[:n]
		return b
	}
	return &bodyBuffer{data: make([]byte, n, 1<<(class+minBodyClassBits)), class: class}
}

// put recycles b, which must no longer be used.
func (p *bodyBuffers) put(b *bodyBuffer) {
	if b == nil || b.class < 0 {
		return
	}
	p.classes[b.class].Put(b)
}
