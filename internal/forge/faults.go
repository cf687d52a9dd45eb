package forge

import (
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Faults are the failures the forge injects on demand, from Go
// (Forge.SetFaults) or over HTTP (POST /_forge/faults with this JSON;
// DELETE clears). They apply to REST calls only (not git, not /_forge),
// optionally only to paths starting with PathPrefix (after /api/v3).
type Faults struct {
	// LatencyMs delays every matching call.
	LatencyMs int `json:"latencyMs,omitempty"`
	// ServerErrors fails the next N calls with ServerErrorStatus.
	ServerErrors int `json:"serverErrors,omitempty"`
	// ServerErrorRate fails this fraction of calls (0..1), drawn from a
	// generator seeded with Seed so runs repeat.
	ServerErrorRate float64 `json:"serverErrorRate,omitempty"`
	// ServerErrorStatus is the 5xx status used (default 502).
	ServerErrorStatus int `json:"serverErrorStatus,omitempty"`
	// PrimaryRateLimit answers the next N calls as primary-rate-limited:
	// PrimaryStatus (403 default, or 429) with x-ratelimit-remaining: 0
	// and x-ratelimit-reset PrimaryResetSeconds from now (default 60).
	PrimaryRateLimit    int `json:"primaryRateLimit,omitempty"`
	PrimaryStatus       int `json:"primaryStatus,omitempty"`
	PrimaryResetSeconds int `json:"primaryResetSeconds,omitempty"`
	// SecondaryRateLimit answers the next N calls 403 with GitHub's
	// secondary-limit message, and Retry-After: RetryAfterSeconds when
	// that is positive.
	SecondaryRateLimit int `json:"secondaryRateLimit,omitempty"`
	RetryAfterSeconds  int `json:"retryAfterSeconds,omitempty"`
	// DropWebhooks loses the next N webhook deliveries; DropWebhookEvery
	// loses every Nth one (3: the third, sixth, ...).
	DropWebhooks     int `json:"dropWebhooks,omitempty"`
	DropWebhookEvery int `json:"dropWebhookEvery,omitempty"`
	// PathPrefix limits REST faults to paths with this prefix, e.g. "/repos/acme/catalog/pulls".
	PathPrefix string `json:"pathPrefix,omitempty"`
	Seed       int64  `json:"seed,omitempty"`
}

type faultInjector struct {
	mu         sync.Mutex
	f          Faults
	rnd        *rand.Rand
	deliveries int
}

func newFaultInjector() *faultInjector {
	return &faultInjector{rnd: rand.New(rand.NewSource(1))}
}

// SetFaults replaces the active faults (zero value: none).
func (f *Forge) SetFaults(fl Faults) {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	f.faults.f = fl
	f.faults.rnd = rand.New(rand.NewSource(fl.Seed))
	f.faults.deliveries = 0
}

// Faults returns the active faults, with counters as they stand.
func (f *Forge) Faults() Faults {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	return f.faults.f
}

// faultDecision is what to do to one REST call.
type faultDecision struct {
	latency time.Duration
	status  int
	headers map[string]string
	message string
	docs    string // documentation_url of the error body ("" = the generic one)
}

// GitHub's documentation_url of rate-limit errors; go-github recognises a
// secondary limit by it (AbuseRateLimitError).
const (
	primaryRateLimitDocs   = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"
	secondaryRateLimitDocs = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"
)

// decide consumes one call's worth of the configured faults.
func (fi *faultInjector) decide(path string, now time.Time) faultDecision {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	f := &fi.f
	var d faultDecision
	if f.PathPrefix != "" && !strings.HasPrefix(path, f.PathPrefix) {
		return d
	}
	d.latency = time.Duration(f.LatencyMs) * time.Millisecond
	switch {
	case f.PrimaryRateLimit > 0:
		f.PrimaryRateLimit--
		d.status = http.StatusForbidden
		if f.PrimaryStatus == http.StatusTooManyRequests {
			d.status = http.StatusTooManyRequests
		}
		reset := f.PrimaryResetSeconds
		if reset == 0 {
			reset = 60
		}
		d.headers = map[string]string{
			"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0", "X-RateLimit-Used": "5000",
			"X-RateLimit-Reset":    strconv.FormatInt(now.Add(time.Duration(reset)*time.Second).Unix(), 10),
			"X-RateLimit-Resource": "core",
		}
		d.message = "API rate limit exceeded for installation. If you reach out to GitHub Support for help, please include the request ID."
		d.docs = primaryRateLimitDocs
	case f.SecondaryRateLimit > 0:
		f.SecondaryRateLimit--
		d.status = http.StatusForbidden
		d.headers = map[string]string{}
		if f.RetryAfterSeconds > 0 {
			d.headers["Retry-After"] = strconv.Itoa(f.RetryAfterSeconds)
		}
		d.message = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
		d.docs = secondaryRateLimitDocs
	case f.ServerErrors > 0 || (f.ServerErrorRate > 0 && fi.rnd.Float64() < f.ServerErrorRate):
		if f.ServerErrors > 0 {
			f.ServerErrors--
		}
		d.status = f.ServerErrorStatus
		if d.status < 500 || d.status > 599 {
			d.status = http.StatusBadGateway
		}
		d.message = "Server Error"
	}
	return d
}

// dropDelivery reports whether the next webhook delivery is lost.
func (fi *faultInjector) dropDelivery() bool {
	fi.mu.Lock()
	defer fi.mu.Unlock()
	fi.deliveries++
	if fi.f.DropWebhooks > 0 {
		fi.f.DropWebhooks--
		return true
	}
	return fi.f.DropWebhookEvery > 0 && fi.deliveries%fi.f.DropWebhookEvery == 0
}

func (f *Forge) handleFaults(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodDelete:
		f.SetFaults(Faults{})
		noContent(w)
	case http.MethodPost, http.MethodPut:
		var fl Faults
		if !decodeBody(w, r, &fl) {
			return
		}
		f.SetFaults(fl)
		writeRaw(w, http.StatusOK, fl)
	default:
		writeRaw(w, http.StatusOK, f.Faults())
	}
}
