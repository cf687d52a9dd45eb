package ingress

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

var testSecret = []byte("It's a Secret to Everybody")

// deadlockGuard bounds how long a test waits for something that must
// happen; it only turns a hang into a failure and is never a timing
// assertion.
const deadlockGuard = 30 * time.Second

func signature(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func testLogger() *logrus.Logger {
	log := logrus.New()
	log.Out = io.Discard
	log.Level = logrus.DebugLevel // exercise the debug paths too
	return log
}

// recorder is a Handler that decodes the events it handles and records
// them, in order, announcing each one on handled (if not nil).
type recorder struct {
	mu      sync.Mutex
	events  []*Event
	raw     map[string][]byte // copies of Raw by delivery, which the server recycles
	handled chan *Event
}

func newRecorder(buffer int) *recorder {
	return &recorder{handled: make(chan *Event, buffer), raw: map[string][]byte{}}
}

func (r *recorder) Handle(_ context.Context, ev *Event) error {
	if _, err := ev.Decode(); err != nil {
		return err
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.raw[ev.DeliveryID] = bytes.Clone(ev.Raw)
	r.mu.Unlock()
	if r.handled != nil {
		r.handled <- ev
	}
	return nil
}

func (r *recorder) rawBody(delivery string) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.raw[delivery]
}

func (r *recorder) recorded() []*Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Event(nil), r.events...)
}

// wait returns the next handled event, failing the test if none comes.
func (r *recorder) wait(t *testing.T) *Event {
	t.Helper()
	select {
	case ev := <-r.handled:
		return ev
	case <-time.After(deadlockGuard):
		t.Fatal("handler never ran")
		return nil
	}
}

type testServer struct {
	*Server
	url     string
	metrics *metrics.Metrics
}

// newTestServer starts a Server with opts (secret, logger and metrics
// filled in when zero, and a push handler that does nothing when Handlers
// is nil) behind a loopback httptest server. start says whether to call
// Start.
func newTestServer(t *testing.T, opts Options, start bool) *testServer {
	t.Helper()
	if opts.Handlers == nil {
		opts.Handlers = Handlers{"push": HandlerFunc(func(context.Context, *Event) error { return nil })}
	}
	if opts.WebhookSecret == nil {
		opts.WebhookSecret = testSecret
	}
	if opts.Logger == nil {
		opts.Logger = testLogger()
	}
	if opts.Metrics == nil {
		opts.Metrics = metrics.New()
	}
	s, err := NewServer(opts)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	hs := httptest.NewServer(s.Routes())
	t.Cleanup(hs.Close)
	t.Cleanup(func() { shutdown(t, s) })
	if start {
		s.Start(context.Background())
	}
	return &testServer{Server: s, url: hs.URL, metrics: opts.Metrics}
}

// shutdown drains s, failing the test if that does not finish.
func shutdown(t *testing.T, s *Server) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadlockGuard)
	defer cancel()
	if err := s.Shutdown(ctx); err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// delivery describes one webhook request.
type delivery struct {
	method   string // default POST
	path     string // default HookPath
	event    string
	id       string
	body     []byte
	sign     func(body []byte) map[string]string // default: valid X-Hub-Signature-256
	send     []byte                              // body actually sent, default body
	chunked  bool                                // hide the Content-Length
	noHeader []string                            // headers to leave out
}

type answer struct {
	status  int
	message string
	header  http.Header
	raw     []byte
}

func (d delivery) do(t *testing.T, baseURL string) answer {
	t.Helper()
	req := d.request(t, baseURL)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read answer: %v", err)
	}
	var msg messageBody
	if req.Method != http.MethodHead && req.URL.Path != MetricsPath {
		if ct := resp.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("answer %d has Content-Type %q, want JSON", resp.StatusCode, ct)
		}
		if err := json.Unmarshal(raw, &msg); err != nil {
			t.Fatalf("answer %d is not a JSON message: %q", resp.StatusCode, raw)
		}
	}
	return answer{status: resp.StatusCode, message: msg.Message, header: resp.Header, raw: raw}
}

func (d delivery) request(t testing.TB, baseURL string) *http.Request {
	t.Helper()
	method, path := d.method, d.path
	if method == "" {
		method = http.MethodPost
	}
	if path == "" {
		path = HookPath
	}
	sent := d.send
	if sent == nil {
		sent = d.body
	}
	var body io.Reader = bytes.NewReader(sent)
	if d.chunked {
		body = io.MultiReader(body) // unknown length: sent chunked
	}
	req, err := http.NewRequest(method, baseURL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{
		"Content-Type":      "application/json",
		"User-Agent":        "GitHub-Hookshot/test",
		"X-GitHub-Event":    d.event,
		"X-GitHub-Delivery": d.id,
	}
	sign := d.sign
	if sign == nil {
		sign = func(body []byte) map[string]string {
			return map[string]string{"X-Hub-Signature-256": signature(testSecret, body)}
		}
	}
	for k, v := range sign(d.body) {
		headers[k] = v
	}
	for _, k := range d.noHeader {
		delete(headers, k)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return req
}

// pushPayload is a small push event for repository repo.
func pushPayload(repo string, seq int) []byte {
	return fmt.Appendf(nil, `{"ref":"refs/heads/main","before":"0000","after":"%d",`+
		`"repository":{"id":1,"name":"r","full_name":%q},"installation":{"id":42},"commits":[]}`, seq, repo)
}

// counter reads the deliveries counter for event and outcome.
func counter(t *testing.T, m *metrics.Metrics, event, outcome string) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Deliveries.WithLabelValues(event, outcome).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetCounter().GetValue()
}

func errorsIs(err, target error) bool { return errors.Is(err, target) }

func newTestGauge() prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: "test_gauge"})
}

func gaugeValue(t *testing.T, g prometheus.Gauge) float64 {
	t.Helper()
	var out dto.Metric
	if err := g.Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetGauge().GetValue()
}

// histogramCount reads how many handler durations were observed for event.
func histogramCount(t *testing.T, m *metrics.Metrics, event string) int {
	t.Helper()
	var out dto.Metric
	if err := m.HandlerDuration.WithLabelValues(event).(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	return int(out.GetHistogram().GetSampleCount())
}
