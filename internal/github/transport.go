package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/internal/metrics"
)

// Transport defaults.
const (
	DefaultMaxRetries      = 4
	DefaultBaseDelay       = 500 * time.Millisecond
	DefaultMaxDelay        = 30 * time.Second
	DefaultMaxWait         = 60 * time.Second
	DefaultSecondaryWait   = 60 * time.Second
	DefaultMutationSpacing = 800 * time.Millisecond
	DefaultAttemptTimeout  = 30 * time.Second
)

// tokenEndpoint is exempt from mutation spacing: minting an installation
// token creates no content and must not delay an installation's first call.
const tokenEndpoint = "/app/installations/{number}/access_tokens"

// TransportOptions configure a Transport. For most fields the zero value
// selects the default; DefaultTransportOptions returns the production
// settings, including the two whose zero value means "off".
type TransportOptions struct {
	// Base sends the requests. Default http.DefaultTransport.
	Base http.RoundTripper
	// Clock tells the time and sleeps. Default RealClock.
	Clock Clock
	// Logger receives a warning for each retry and wait. Default
	// logrus.StandardLogger().
	Logger logrus.FieldLogger
	// Metrics, if set, receives GitHubCalls and RateLimitRemaining.
	Metrics *metrics.Metrics
	// OnCall, if set, is called after every attempt that went to the wire
	// (retries included) with the endpoint template, the method and the
	// status code, 0 for a transport error. It must be safe for concurrent
	// use.
	OnCall func(endpoint, method string, status int)

	// MaxRetries bounds the retries of one request, whatever their cause.
	// Zero means DefaultMaxRetries (4); negative disables retries and waits.
	MaxRetries int
	// BaseDelay and MaxDelay shape the exponential backoff. Zero means
	// DefaultBaseDelay (500ms) and DefaultMaxDelay (30s).
	BaseDelay, MaxDelay time.Duration
	// MaxWait is the longest single rate-limit wait the transport sleeps
	// through; a limit asking for more fails at once with *RateLimitError or
	// *SecondaryRateLimitError. Zero means DefaultMaxWait (60s); negative
	// never waits.
	MaxWait time.Duration
	// SecondaryWait is the first wait after a secondary rate limit without
	// Retry-After; repeats double it. Zero means DefaultSecondaryWait (60s,
	// as GitHub asks).
	SecondaryWait time.Duration
	// MutationSpacing is the minimum gap between mutating requests (POST,
	// PATCH, PUT, DELETE) through this transport. Zero disables spacing
	// (tests, the local forge); production uses DefaultMutationSpacing (800 ms:
	// 75 a minute, under GitHub's secondary limit of 80).
	MutationSpacing time.Duration
	// AttemptTimeout bounds each attempt, from sending the request to
	// closing the response body. An attempt that runs out is retried if the
	// method allows. Zero means no per-attempt timeout; production uses
	// DefaultAttemptTimeout (30s).
	AttemptTimeout time.Duration
}

// DefaultTransportOptions returns the settings porchbot uses against GitHub.
func DefaultTransportOptions() TransportOptions {
	return TransportOptions{
		MaxRetries:      DefaultMaxRetries,
		BaseDelay:       DefaultBaseDelay,
		MaxDelay:        DefaultMaxDelay,
		MaxWait:         DefaultMaxWait,
		SecondaryWait:   DefaultSecondaryWait,
		MutationSpacing: DefaultMutationSpacing,
		AttemptTimeout:  DefaultAttemptTimeout,
	}
}

// Transport is an http.RoundTripper for the GitHub API. It retries 5xx
// responses, timeouts and transient network errors with backoff (see the
// retry policy in retry.go), waits out primary and secondary rate limits when
// they are short, spaces mutating calls, and counts every call. It is safe
// for concurrent use; share one per process so spacing and connection reuse
// span all clients.
type Transport struct {
	base           http.RoundTripper
	clock          Clock
	log            logrus.FieldLogger
	metrics        *metrics.Metrics
	onCall         func(endpoint, method string, status int)
	maxRetries     int
	baseDelay      time.Duration
	maxDelay       time.Duration
	maxWait        time.Duration
	secondaryWait  time.Duration
	attemptTimeout time.Duration
	spacer         *spacer
	rand           func() float64 // in [0, 1); replaced in tests
}

var _ http.RoundTripper = (*Transport)(nil)

// NewTransport builds a Transport from opts.
func NewTransport(opts TransportOptions) *Transport {
	t := &Transport{
		base:           opts.Base,
		clock:          opts.Clock,
		log:            opts.Logger,
		metrics:        opts.Metrics,
		onCall:         opts.OnCall,
		maxRetries:     opts.MaxRetries,
		baseDelay:      opts.BaseDelay,
		maxDelay:       opts.MaxDelay,
		maxWait:        opts.MaxWait,
		secondaryWait:  opts.SecondaryWait,
		attemptTimeout: opts.AttemptTimeout,
		rand:           rand.Float64,
	}
	if t.base == nil {
		t.base = http.DefaultTransport
	}
	if t.clock == nil {
		t.clock = RealClock{}
	}
	if t.log == nil {
		t.log = logrus.StandardLogger()
	}
	switch {
	case t.maxRetries == 0:
		t.maxRetries = DefaultMaxRetries
	case t.maxRetries < 0:
		t.maxRetries = 0
	}
	if t.baseDelay <= 0 {
		t.baseDelay = DefaultBaseDelay
	}
	if t.maxDelay <= 0 {
		t.maxDelay = DefaultMaxDelay
	}
	if t.maxWait == 0 {
		t.maxWait = DefaultMaxWait
	}
	if t.secondaryWait <= 0 {
		t.secondaryWait = DefaultSecondaryWait
	}
	t.spacer = newSpacer(opts.MutationSpacing, t.clock)
	return t
}

// RoundTrip sends req, retrying and waiting as the policy allows. It returns
// the final response, which may be a 5xx once retries are exhausted, or an
// error: the transport error of the last attempt, *RateLimitError,
// *SecondaryRateLimitError, or the context's error.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	getBody, err := replayableBody(req)
	if err != nil {
		return nil, err
	}
	rt := &roundTrip{
		t:        t,
		req:      req,
		ctx:      req.Context(),
		getBody:  getBody,
		endpoint: Endpoint(req.URL.EscapedPath()),
	}
	return rt.run()
}

// roundTrip is the state of one request across its attempts.
type roundTrip struct {
	t        *Transport
	req      *http.Request
	ctx      context.Context
	getBody  func() (io.ReadCloser, error)
	endpoint string

	retries        int  // retries done so far
	primaryWaited  bool // waited once for a primary limit
	secondaryWaits int  // waits for secondary limits without Retry-After
}

func (rt *roundTrip) run() (*http.Response, error) {
	t, method := rt.t, rt.req.Method
	for {
		if err := rt.ctx.Err(); err != nil {
			return nil, err
		}
		if isMutating(method) && rt.endpoint != tokenEndpoint {
			if err := t.spacer.wait(rt.ctx); err != nil {
				return nil, err
			}
		}
		resp, timedOut, err := rt.attempt()
		t.observe(rt.endpoint, method, resp)

		if err != nil {
			if rt.ctx.Err() != nil {
				return nil, err
			}
			ok, reason := retryableError(method, err, timedOut)
			if !ok {
				return nil, err
			}
			if rt.retries >= t.maxRetries {
				return nil, fmt.Errorf("github: %s %s: giving up after %d retries: %w", method, rt.endpoint, rt.retries, err)
			}
			if err := rt.sleep(t.backoff(rt.retries), 0, reason, err); err != nil {
				return nil, err
			}
			continue
		}

		rl, err := detectRateLimit(resp, t.clock.Now())
		if err != nil {
			drainClose(resp)
			return nil, fmt.Errorf("github: %s %s: %w", method, rt.endpoint, err)
		}
		if rl != nil {
			wait, reason, limitErr := rt.rateLimitWait(rl, resp.StatusCode)
			drainClose(resp)
			if limitErr != nil {
				t.log.WithFields(logrus.Fields{
					"endpoint": rt.endpoint, "method": method, "status": resp.StatusCode,
				}).WithError(limitErr).Warn("GitHub rate limit: giving up")
				return nil, limitErr
			}
			if err := rt.sleep(wait, resp.StatusCode, reason, nil); err != nil {
				return nil, err
			}
			continue
		}

		if retryableStatus(method, resp.StatusCode) && rt.retries < t.maxRetries {
			wait := t.backoff(rt.retries)
			if ra, ok := parseRetryAfter(resp.Header.Get(headerRetryAfter), t.clock.Now()); ok && ra > wait {
				if ra > t.maxWait {
					return resp, nil // GitHub asks for a longer pause than we take
				}
				wait = ra
			}
			drainClose(resp)
			if err := rt.sleep(wait, resp.StatusCode, "server error", nil); err != nil {
				return nil, err
			}
			continue
		}
		return resp, nil
	}
}

// attempt sends one copy of the request, under the per-attempt timeout if
// one is set. timedOut reports that this timeout, not the caller's context,
// ended the attempt.
func (rt *roundTrip) attempt() (resp *http.Response, timedOut bool, err error) {
	req := rt.req.Clone(rt.ctx)
	if rt.getBody != nil {
		if req.Body, err = rt.getBody(); err != nil {
			return nil, false, fmt.Errorf("github: replay request body: %w", err)
		}
		req.GetBody = rt.getBody
	}
	if rt.t.attemptTimeout <= 0 {
		resp, err = rt.t.base.RoundTrip(req)
		return resp, false, err
	}

	actx, cancel := context.WithTimeout(rt.ctx, rt.t.attemptTimeout)
	resp, err = rt.t.base.RoundTrip(req.WithContext(actx))
	if err != nil {
		timedOut = errors.Is(actx.Err(), context.DeadlineExceeded) && rt.ctx.Err() == nil
		cancel()
		return nil, timedOut, err
	}
	resp.Body = &cancelOnClose{ReadCloser: resp.Body, cancel: cancel}
	return resp, false, nil
}

// rateLimitWait decides how long to wait before retrying a rate-limited
// request, or returns the error to fail with.
func (rt *roundTrip) rateLimitWait(rl *rateLimit, status int) (time.Duration, string, error) {
	t := rt.t
	now := t.clock.Now()
	if rl.primary {
		wait := t.secondaryWait // no reset header: GitHub says wait a minute
		reset := now.Add(wait)
		if !rl.reset.IsZero() {
			reset = rl.reset
			wait = rl.reset.Sub(now) + time.Second // reset is whole seconds
		}
		if rl.hasRetry && rl.retryAfter > wait {
			wait = rl.retryAfter
		}
		if wait < time.Second {
			wait = time.Second
		}
		if rt.primaryWaited || rt.retries >= t.maxRetries || wait > t.maxWait {
			return 0, "", &RateLimitError{
				Reset: reset, Resource: rl.resource, StatusCode: status,
				Method: rt.req.Method, Endpoint: rt.endpoint, wait: max(reset.Sub(now), 0),
			}
		}
		rt.primaryWaited = true
		return wait, "primary rate limit", nil
	}

	wait := rl.retryAfter
	if !rl.hasRetry {
		wait = t.secondaryWait
		for i := 0; i < rt.secondaryWaits && wait < 24*time.Hour; i++ {
			wait *= 2
		}
	}
	if rt.retries >= t.maxRetries || wait > t.maxWait {
		return 0, "", &SecondaryRateLimitError{
			RetryAfter: wait, Retries: rt.retries, StatusCode: status,
			Method: rt.req.Method, Endpoint: rt.endpoint, Message: rl.message,
		}
	}
	if !rl.hasRetry {
		rt.secondaryWaits++
	}
	return wait, "secondary rate limit", nil
}

// sleep logs and waits before the next retry, and counts it.
func (rt *roundTrip) sleep(wait time.Duration, status int, reason string, cause error) error {
	fields := logrus.Fields{
		"endpoint": rt.endpoint,
		"method":   rt.req.Method,
		"wait":     wait.String(),
		"attempt":  rt.retries + 1,
		"reason":   reason,
	}
	if status != 0 {
		fields["status"] = status
	}
	entry := rt.t.log.WithFields(fields)
	if cause != nil {
		entry = entry.WithError(cause)
	}
	entry.Warn("GitHub call failed; retrying")
	rt.retries++
	if err := rt.t.clock.Sleep(rt.ctx, wait); err != nil {
		return fmt.Errorf("github: %s %s: waiting %s to retry (%s): %w", rt.req.Method, rt.endpoint, wait, reason, err)
	}
	return nil
}

// observe counts one attempt. resp is nil for a transport error.
func (t *Transport) observe(endpoint, method string, resp *http.Response) {
	status := 0
	if resp != nil {
		status = resp.StatusCode
	}
	if t.onCall != nil {
		t.onCall(endpoint, method, status)
	}
	if t.metrics == nil {
		return
	}
	label := "error"
	if status != 0 {
		label = strconv.Itoa(status)
	}
	t.metrics.GitHubCalls.WithLabelValues(endpoint, method, label).Inc()
	if resp == nil {
		return
	}
	if v := resp.Header.Get(headerRateRemaining); v != "" {
		if n, err := strconv.ParseFloat(v, 64); err == nil {
			resource := resp.Header.Get(headerRateResource)
			if resource == "" {
				resource = "core"
			}
			t.metrics.RateLimitRemaining.WithLabelValues(resource).Set(n)
		}
	}
}

// replayableBody returns a function producing fresh copies of req's body, or
// nil if it has none. A body without GetBody is read into memory (GitHub API
// request bodies are small). Either way req.Body is closed, as the
// RoundTripper contract requires.
func replayableBody(req *http.Request) (func() (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	if req.GetBody != nil {
		_ = req.Body.Close()
		return req.GetBody, nil
	}
	buf, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("github: read request body: %w", err)
	}
	return func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(buf)), nil
	}, nil
}

// drainClose discards a little of a response body, so the connection can be
// reused, and closes it.
func drainClose(resp *http.Response) {
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
}

// cancelOnClose releases an attempt's timeout context when the caller is
// done with the response body.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.cancel()
	return err
}
