package ingress

import "testing"

func TestBodyBuffersSizes(t *testing.T) {
	var p bodyBuffers
	for _, n := range []int{0, 1, 4096, 4097, 25 << 10, maxPooledBody, maxPooledBody + 1} {
		b := p.get(n)
		if len(b.data) != n {
			t.Errorf("get(%d): len %d", n, len(b.data))
		}
		if n <= maxPooledBody && (b.class < 0 || cap(b.data) != 1<<(b.class+minBodyClassBits) || cap(b.data) < n) {
			t.Errorf("get(%d): class %d, cap %d", n, b.class, cap(b.data))
		}
		if n > maxPooledBody && b.class != -1 {
			t.Errorf("get(%d) is pooled", n)
		}
		p.put(b)
		if again := p.get(n); len(again.data) != n {
			t.Errorf("get(%d) after put: len %d", n, len(again.data))
		}
	}
}
