package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/forge"
)

// sinkFleet sends the forge's webhooks to a sink from now on: what a
// benchmark measures is counted apart from the lifecycle its calls cause,
// which settle on the returned fleet (the world's one replica) hands to
// the bot afterwards. Deliveries made before are not handed over.
func sinkFleet(tb testing.TB, w *world) *fleet {
	tb.Helper()
	sink := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rw.WriteHeader(http.StatusAccepted)
	}))
	tb.Cleanup(sink.Close)
	emb := w.svc.Embedded
	emb.Forge.SetWebhook(sink.URL, emb.WebhookSecret)
	return &fleet{w: w, replicas: []*service.Service{w.svc}, secret: emb.WebhookSecret, client: &http.Client{Timeout: 30 * time.Second},
		orders: []func([]forge.Delivery) []forge.Delivery{func(ds []forge.Delivery) []forge.Delivery { return ds }},
		sent:   len(emb.Forge.Deliveries())}
}

// heapPeaks samples, every 20 ms until stop is called, the heap in use
// (live objects and garbage not yet collected) and the live heap the last
// GC marked, and returns their peaks. PORCHBOT_BENCH_HEAPPROFILE names a
// file that gets the heap profile at each new peak (to see what holds it).
func heapPeaks() (stop func() (inUse, live uint64)) {
	var peak, peakLive uint64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			runtime.ReadMemStats(&ms)
			metrics.Read(sample)
			peakLive = max(peakLive, sample[0].Value.Uint64())
			if ms.HeapInuse > peak {
				peak = ms.HeapInuse
				if p := os.Getenv("PORCHBOT_BENCH_HEAPPROFILE"); p != "" {
					if f, err := os.Create(p); err == nil {
						_ = pprof.WriteHeapProfile(f)
						_ = f.Close()
					}
				}
			}
			select {
			case <-quit:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return func() (uint64, uint64) {
		close(quit)
		<-done
		return peak, peakLive
	}
}
