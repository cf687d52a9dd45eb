package ingress

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

const (
	benchPayloadSize = 25 << 10
	benchSenders     = 32
)

// benchPushPayload is the real push payload with installation, padded with
// copies of its head commit to about 25 KB.
func benchPushPayload(tb testing.TB) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(payloadsDir, "push", "with-installation.payload.json"))
	if err != nil {
		tb.Fatalf("real payloads are required: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var push map[string]any
	if err := dec.Decode(&push); err != nil {
		tb.Fatal(err)
	}
	commit := map[string]any{
		"id": "6113728f27ae82c7b1a177c8d03f9e96e0adf246", "tree_id": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"distinct": true, "message": "Update the upf package: bump the image and set the namespace",
		"timestamp": "2019-05-15T15:20:30-05:00",
		"url":       "https://github.com/Codertocat/Hello-World/commit/6113728f27ae82c7b1a177c8d03f9e96e0adf246",
		"author":    map[string]any{"name": "Codertocat", "email": "21031067+Codertocat@users.noreply.github.com", "username": "Codertocat"},
		"committer": map[string]any{"name": "GitHub", "email": "noreply@github.com", "username": "web-flow"},
		"added":     []any{"network/upf/deployment.yaml"}, "removed": []any{},
		"modified": []any{"network/upf/Kptfile", "network/upf/service.yaml"},
	}
	var commits []any
	for {
		body, err := json.Marshal(push)
		if err != nil {
			tb.Fatal(err)
		}
		if len(body) >= benchPayloadSize {
			return body
		}
		commits = append(commits, commit)
		push["commits"] = commits
		push["head_commit"] = commit
	}
}

// BenchmarkWebhookIngress measures the real server on a loopback listener
// under 32 concurrent senders sharing one keep-alive client, with no-op
// handlers: deliveries/s and the latency of each delivery as a sender sees
// it. Every delivery must be answered 202.
func BenchmarkWebhookIngress(b *testing.B) {
	payload := benchPushPayload(b)
	sig := signature(testSecret, payload)

	log := logrus.New()
	log.Out = io.Discard
	log.Level = logrus.InfoLevel
	s, err := NewServer(Options{
		WebhookSecret: testSecret,
		Handlers:      Handlers{"push": HandlerFunc(func(context.Context, *Event) error { return nil })},
		Metrics:       metrics.New(),
		Logger:        log,
	})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: s.Routes(), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	s.Start(context.Background())

	client := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        benchSenders * 2,
		MaxIdleConnsPerHost: 64,
		DisableCompression:  true,
		// Room for a whole delivery: the request goes out in one write,
		// and the load generator does not allocate a 32 KiB copy buffer
		// per request (net.genericReadFrom), which would load the GC as
		// much as the server does.
		WriteBufferSize: 64 << 10,
	}}
	defer client.CloseIdleConnections()
	url := "http://" + ln.Addr().String() + HookPath
	var seq atomic.Int64
	newSender := func() func() (time.Duration, int, error) {
		// Each sender reuses its request (allowed once the response body
		// is closed) so that the load generator, which shares the two
		// cores with the server, makes as little garbage as it can.
		// A *bytes.Reader, so that net/http knows the body is in memory
		// and writes it with the headers, from its buffer.
		body := bytes.NewReader(payload)
		req, err := http.NewRequest(http.MethodPost, url, body)
		if err != nil {
			b.Fatal(err)
		}
		req.ContentLength = int64(len(payload))
		req.Header["Content-Type"] = []string{"application/json"}
		req.Header["X-Github-Event"] = []string{"push"}
		req.Header["X-Hub-Signature-256"] = []string{sig}
		id := []string{""}
		req.Header["X-Github-Delivery"] = id
		return func() (time.Duration, int, error) {
			id[0] = "bench-" + strconv.FormatInt(seq.Add(1), 10)
			body.Reset(payload)
			start := time.Now()
			resp, err := client.Do(req)
			if err != nil {
				return 0, 0, err
			}
			_, err = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return time.Since(start), resp.StatusCode, err
		}
	}

	// Open the keep-alive connections before measuring.
	senders := make([]func() (time.Duration, int, error), benchSenders)
	var warm sync.WaitGroup
	for i := range senders {
		senders[i] = newSender()
		warm.Go(func() {
			if _, status, err := senders[i](); err != nil || status != http.StatusAccepted {
				b.Errorf("warm-up: %d %v", status, err)
			}
		})
	}
	warm.Wait()

	latencies := make([][]time.Duration, benchSenders)
	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i := range benchSenders {
		wg.Go(func() {
			lat := make([]time.Duration, 0, b.N/benchSenders+1)
			for next.Add(1) <= int64(b.N) {
				d, status, err := senders[i]()
				if err != nil || status != http.StatusAccepted {
					if failed.Add(1) == 1 {
						b.Errorf("delivery answered %d, %v", status, err)
					}
					continue
				}
				lat = append(lat, d)
			}
			latencies[i] = lat
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		b.Fatal(err)
	}
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d of %d deliveries not accepted", n, b.N)
	}

	all := slices.Concat(latencies...)
	slices.Sort(all)
	p50, p99 := percentile(all, 0.50), percentile(all, 0.99)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "deliveries/s")
	b.ReportMetric(ms(p50), "p50-ms")
	b.ReportMetric(ms(p99), "p99-ms")
	b.ReportMetric(float64(p50)/verifyCost(payload), "p50/verify")
	b.ReportMetric(float64(len(payload)), "payload-bytes")
}

// BenchmarkSignatureVerify measures the HMAC-SHA256 check alone on the
// ingress benchmark's payload.
func BenchmarkSignatureVerify(b *testing.B) {
	payload := benchPushPayload(b)
	sig := signature(testSecret, payload)
	v := newSignatureVerifier(testSecret)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if err := v.verify(sig, false, payload); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseEnvelope measures the ingress JSON validation and
// extraction on the same payload.
func BenchmarkParseEnvelope(b *testing.B) {
	benchEnvelope(b, func(payload []byte) bool {
		_, err := parseEnvelope(payload)
		return err == nil
	})
}

// BenchmarkParseEnvelopeStd measures the same extraction with
// encoding/json: referenceEnvelope, parseEnvelope's specification. The
// standard decoder matches keys case-insensitively and takes a top-level
// null for an object, so meeting parseEnvelope's bounds takes a map of raw
// members at each level; this is why ingress keeps its own scanner
// (doc.go).
func BenchmarkParseEnvelopeStd(b *testing.B) {
	benchEnvelope(b, func(payload []byte) bool {
		_, ok := referenceEnvelope(payload)
		return ok
	})
}

// benchEnvelope measures parse, which reports whether it accepted the
// payload, on the ingress benchmark's payload.
func benchEnvelope(b *testing.B, parse func(payload []byte) bool) {
	payload := benchPushPayload(b)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if !parse(payload) {
			b.Fatal("payload refused")
		}
	}
}

// BenchmarkDecodePayload measures the worker's typed decode of the payload.
func BenchmarkDecodePayload(b *testing.B) {
	payload := benchPushPayload(b)
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decodePayload("push", payload); err != nil {
			b.Fatal(err)
		}
	}
}

// verifyCost returns the ns one signature check of payload costs. (It
// cannot call testing.Benchmark: that waits for the running benchmark.)
func verifyCost(payload []byte) float64 {
	const rounds = 4000
	sig := signature(testSecret, payload)
	v := newSignatureVerifier(testSecret)
	start := time.Now()
	for range rounds {
		_ = v.verify(sig, false, payload)
	}
	return float64(time.Since(start).Nanoseconds()) / rounds
}

func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))]
}
