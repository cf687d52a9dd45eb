package fnimage

import (
	"context"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/porchbot/porchbot/internal/benchclock"
	"github.com/porchbot/porchbot/internal/fnimage/fnimagetest"
)

// BenchmarkPullFirstAndCached pulls a function image (a Go KRM function,
// some MiB) from a loopback registry into an empty cache, then asks for it
// again by tag (a HEAD of its manifest, the program found in the cache)
// and by digest (nothing asked of the registry); it reports the fastest
// of each and how many times faster the cached runs are than the pull.
func BenchmarkPullFirstAndCached(b *testing.B) {
	reg := fnimagetest.NewRegistry(b)
	digest := reg.Push(b, "fns/hello", "v1", v1.Config{Entrypoint: []string{"/function"}},
		fnimagetest.Layer(b, fnimagetest.Entry{Name: "function", Body: fnimagetest.Hello(b)}))
	allow, err := ParseAllowlist([]string{reg.Host + "/fns/hello"})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	var first, byTag, byDigest benchclock.Fastest
	for i := 0; i < b.N; i++ {
		p := &Puller{Allow: allow, Cache: b.TempDir()}
		for _, step := range []struct {
			t     *benchclock.Fastest
			image string
		}{{&first, reg.Host + "/fns/hello:v1"}, {&byTag, reg.Host + "/fns/hello:v1"}, {&byDigest, reg.Host + "/fns/hello@" + digest}} {
			step.t.Run(func() {
				if _, err := p.Program(ctx, step.image); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
	b.ReportMetric(benchclock.MS(first.Wall), "first-ms")
	b.ReportMetric(benchclock.MS(byTag.Wall), "cached-tag-ms")
	b.ReportMetric(benchclock.MS(byDigest.Wall), "cached-digest-ms")
	b.Logf("first pull %.1f ms; cached by tag %.2f ms (%.0fx faster), by digest %.3f ms (%.0fx faster)",
		benchclock.MS(first.Wall), benchclock.MS(byTag.Wall), benchclock.Ratio(first.Wall, byTag.Wall),
		benchclock.MS(byDigest.Wall), benchclock.Ratio(first.Wall, byDigest.Wall))
}
