package ingress

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/hex"
	"net/http"
	"strings"
	"sync"
	"testing"
)

func sha1Signature(secret, body []byte) string {
	mac := hmac.New(sha1.New, secret)
	mac.Write(body)
	return "sha1=" + hex.EncodeToString(mac.Sum(nil))
}

func TestIngressSecurity(t *testing.T) {
	body := pushPayload("octo/hello", 1)
	valid := delivery{event: "push", id: "d-1", body: body}

	with := func(edit func(d *delivery)) []delivery {
		d := valid
		edit(&d)
		return []delivery{d}
	}
	signedWith := func(header string, value func(body []byte) string) func(d *delivery) {
		return func(d *delivery) {
			d.sign = func(body []byte) map[string]string { return map[string]string{header: value(body)} }
		}
	}

	tests := []struct {
		name       string
		deliveries []delivery
		wantStatus []int
		wantInMsg  string // substring of the last answer's message
		wantRuns   int    // times the push handler ran
		outcome    string // counted once for the last delivery
		label      string // event label of outcome, default the event
	}{
		{
			name:       "valid",
			deliveries: []delivery{valid},
			wantStatus: []int{http.StatusAccepted},
			wantRuns:   1,
			outcome:    outcomeQueued,
		},
		{
			name: "wrong secret",
			deliveries: with(signedWith("X-Hub-Signature-256", func(b []byte) string {
				return signature([]byte("not the secret"), b)
			})),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "does not match",
			outcome:    outcomeUnauthorized,
		},
		{
			name:       "missing signature",
			deliveries: with(func(d *delivery) { d.sign = func([]byte) map[string]string { return nil } }),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "missing X-Hub-Signature-256",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "SHA-1 signature only",
			deliveries: with(signedWith("X-Hub-Signature", func(b []byte) string {
				return sha1Signature(testSecret, b)
			})),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "X-Hub-Signature-256 is required",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "SHA-1 signature in the SHA-256 header",
			deliveries: with(signedWith("X-Hub-Signature-256", func(b []byte) string {
				return sha1Signature(testSecret, b)
			})),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "malformed",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "signature not hex",
			deliveries: with(signedWith("X-Hub-Signature-256", func([]byte) string {
				return "sha256=" + strings.Repeat("zz", 32)
			})),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "malformed",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "signature truncated",
			deliveries: with(signedWith("X-Hub-Signature-256", func(b []byte) string {
				return signature(testSecret, b)[:40]
			})),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "malformed",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "body altered after signing",
			deliveries: with(func(d *delivery) {
				d.send = bytes.Replace(body, []byte("octo/hello"), []byte("evil/hello"), 1)
			}),
			wantStatus: []int{http.StatusUnauthorized},
			wantInMsg:  "does not match",
			outcome:    outcomeUnauthorized,
		},
		{
			name: "oversized",
			deliveries: with(func(d *delivery) {
				d.body = append(append([]byte(nil), body[:len(body)-1]...), []byte(`,"pad":"`+strings.Repeat("x", 2048)+`"}`)...)
			}),
			wantStatus: []int{http.StatusRequestEntityTooLarge},
			wantInMsg:  "too large",
			outcome:    outcomeTooLarge,
		},
		{
			name: "oversized, chunked",
			deliveries: with(func(d *delivery) {
				d.body = append(append([]byte(nil), body[:len(body)-1]...), []byte(`,"pad":"`+strings.Repeat("x", 2048)+`"}`)...)
				d.chunked = true
			}),
			wantStatus: []int{http.StatusRequestEntityTooLarge},
			wantInMsg:  "too large",
			outcome:    outcomeTooLarge,
		},
		{
			name:       "valid, chunked",
			deliveries: with(func(d *delivery) { d.chunked = true }),
			wantStatus: []int{http.StatusAccepted},
			wantRuns:   1,
			outcome:    outcomeQueued,
		},
		{
			name:       "replayed delivery",
			deliveries: []delivery{valid, valid},
			wantStatus: []int{http.StatusAccepted, http.StatusOK},
			wantInMsg:  "duplicate",
			wantRuns:   1,
			outcome:    outcomeDuplicate,
		},
		{
			name:       "unknown event",
			deliveries: with(func(d *delivery) { d.event = "star" }),
			wantStatus: []int{http.StatusAccepted},
			wantInMsg:  "not handled",
			outcome:    outcomeIgnored,
		},
		{
			name:       "event go-github does not know",
			deliveries: with(func(d *delivery) { d.event = "no_such_event" }),
			wantStatus: []int{http.StatusAccepted},
			wantInMsg:  "not handled",
			outcome:    outcomeIgnored,
		},
		{
			name: "ping",
			deliveries: with(func(d *delivery) {
				d.event = "ping"
				d.body = []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
			}),
			wantStatus: []int{http.StatusOK},
			wantInMsg:  "pong",
			outcome:    outcomePing,
		},
		{
			name:       "malformed JSON",
			deliveries: with(func(d *delivery) { d.body = body[:len(body)-2] }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "malformed payload",
			outcome:    outcomeBadRequest,
		},
		{
			name:       "JSON but not an object",
			deliveries: with(func(d *delivery) { d.body = []byte(`[1,2]`) }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "not a JSON object",
			outcome:    outcomeBadRequest,
		},
		{
			name:       "repository of the wrong type",
			deliveries: with(func(d *delivery) { d.body = []byte(`{"repository":"octo/hello"}`) }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "repository",
			outcome:    outcomeBadRequest,
		},
		{
			name:       "missing event header",
			deliveries: with(func(d *delivery) { d.noHeader = []string{"X-GitHub-Event"} }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "X-GitHub-Event",
			outcome:    outcomeBadRequest,
			label:      eventUnknown,
		},
		{
			name:       "missing delivery header",
			deliveries: with(func(d *delivery) { d.noHeader = []string{"X-GitHub-Delivery"} }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "X-GitHub-Delivery",
			outcome:    outcomeBadRequest,
		},
		{
			name:       "delivery header too long",
			deliveries: with(func(d *delivery) { d.id = strings.Repeat("d", maxDeliveryIDLen+1) }),
			wantStatus: []int{http.StatusBadRequest},
			wantInMsg:  "X-GitHub-Delivery",
			outcome:    outcomeBadRequest,
		},
		{
			name:       "wrong method",
			deliveries: with(func(d *delivery) { d.method = http.MethodGet }),
			wantStatus: []int{http.StatusMethodNotAllowed},
			wantInMsg:  "not allowed",
		},
		{
			name:       "wrong method, signed",
			deliveries: with(func(d *delivery) { d.method = http.MethodPut }),
			wantStatus: []int{http.StatusMethodNotAllowed},
			wantInMsg:  "not allowed",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := newRecorder(len(tt.deliveries))
			ts := newTestServer(t, Options{MaxBodyBytes: 1024, Handlers: Handlers{"push": rec}}, true)

			var last answer
			for i, d := range tt.deliveries {
				last = d.do(t, ts.url)
				if last.status != tt.wantStatus[i] {
					t.Fatalf("delivery %d: status %d (%q), want %d", i, last.status, last.message, tt.wantStatus[i])
				}
			}
			if !strings.Contains(last.message, tt.wantInMsg) {
				t.Errorf("message %q does not contain %q", last.message, tt.wantInMsg)
			}
			if last.status == http.StatusMethodNotAllowed && last.header.Get("Allow") != http.MethodPost {
				t.Errorf("Allow = %q, want POST", last.header.Get("Allow"))
			}

			shutdown(t, ts.Server) // everything accepted is handled before it returns
			if runs := len(rec.recorded()); runs != tt.wantRuns {
				t.Errorf("handler ran %d times, want %d", runs, tt.wantRuns)
			}
			if tt.outcome != "" {
				event := eventLabel(tt.deliveries[0].event)
				if tt.label != "" {
					event = tt.label
				}
				if got := counter(t, ts.metrics, event, tt.outcome); got != 1 {
					t.Errorf("deliveries{event=%q,outcome=%q} = %v, want 1", event, tt.outcome, got)
				}
			}
		})
	}
}

func TestIngressHandledEventCarriesEnvelope(t *testing.T) {
	rec := newRecorder(1)
	ts := newTestServer(t, Options{Handlers: Handlers{"push": rec}}, true)
	body := []byte(`{"action":"x","ref":"refs/heads/main","repository":{"full_name":"octo/hello"},"installation":{"id":42}}`)
	if a := (delivery{event: "push", id: "d-1", body: body}).do(t, ts.url); a.status != http.StatusAccepted {
		t.Fatalf("status %d: %s", a.status, a.message)
	}
	ev := rec.wait(t)
	if ev.Name != "push" || ev.DeliveryID != "d-1" || ev.Repo != "octo/hello" || ev.InstallationID != 42 || ev.Action != "x" {
		t.Errorf("event = %+v", ev)
	}
	if raw := rec.rawBody("d-1"); !bytes.Equal(raw, body) {
		t.Errorf("Raw = %q, want the body", raw)
	}
	if ev.Received.IsZero() {
		t.Error("Received not set")
	}
}

func TestConcurrentDuplicatesAcceptedOnce(t *testing.T) {
	rec := newRecorder(64)
	ts := newTestServer(t, Options{Handlers: Handlers{"push": rec}}, true)
	d := delivery{event: "push", id: "same", body: pushPayload("octo/hello", 1)}

	const senders = 32
	statuses := make(chan int, senders)
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			req := d.request(t, ts.url)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			statuses <- resp.StatusCode
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[http.StatusAccepted] != 1 || count[http.StatusOK] != senders-1 {
		t.Errorf("statuses = %v, want one 202 and %d 200", count, senders-1)
	}
	shutdown(t, ts.Server)
	if runs := len(rec.recorded()); runs != 1 {
		t.Errorf("handler ran %d times, want 1", runs)
	}
}

func TestRoutes(t *testing.T) {
	ts := newTestServer(t, Options{}, true)
	tests := []struct {
		method, path string
		want         int
	}{
		{http.MethodGet, HealthzPath, http.StatusOK},
		{http.MethodHead, HealthzPath, http.StatusOK},
		{http.MethodPost, HealthzPath, http.StatusMethodNotAllowed},
		{http.MethodGet, ReadyzPath, http.StatusOK},
		{http.MethodDelete, ReadyzPath, http.StatusMethodNotAllowed},
		{http.MethodGet, MetricsPath, http.StatusOK},
		{http.MethodGet, "/nope", http.StatusNotFound},
	}
	for _, tt := range tests {
		a := delivery{method: tt.method, path: tt.path}.do(t, ts.url)
		if a.status != tt.want {
			t.Errorf("%s %s = %d, want %d", tt.method, tt.path, a.status, tt.want)
		}
	}
	if a := (delivery{event: "ping", id: "p", body: []byte(`{}`)}).do(t, ts.url); a.status != http.StatusOK {
		t.Fatalf("ping: %d %s", a.status, a.message)
	}
	a := delivery{method: http.MethodGet, path: MetricsPath}.do(t, ts.url)
	for _, name := range []string{"porchbot_queue_depth", "porchbot_webhook_deliveries_total"} {
		if !strings.Contains(string(a.raw), name) {
			t.Errorf("/metrics does not expose %s", name)
		}
	}
}
