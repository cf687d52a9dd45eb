package github

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// GitHub's rate-limit response headers.
const (
	headerRateRemaining = "X-Ratelimit-Remaining"
	headerRateReset     = "X-Ratelimit-Reset"
	headerRateResource  = "X-Ratelimit-Resource"
	headerRetryAfter    = "Retry-After"
)

// secondaryLimitMessage is the phrase GitHub's secondary-limit error bodies
// contain ("You have exceeded a secondary rate limit...").
const secondaryLimitMessage = "secondary rate limit"

// rateLimitBodyPeek bounds how much of a 403/429 body is read to look for
// secondaryLimitMessage. GitHub's error documents are a few hundred bytes.
const rateLimitBodyPeek = 64 << 10

// RateLimitError reports an exhausted primary rate limit (403 or 429 with
// x-ratelimit-remaining: 0) whose reset was too far away to wait for, or that
// was still exhausted after waiting once.
type RateLimitError struct {
	// Reset is when GitHub restores the quota (x-ratelimit-reset).
	Reset time.Time
	// Resource is the limited resource (x-ratelimit-resource), e.g. "core",
	// "search", "graphql".
	Resource string
	// StatusCode is GitHub's status, 403 or 429.
	StatusCode int
	// Method and Endpoint identify the request (Endpoint is templated).
	Method, Endpoint string

	wait time.Duration // how long from the failure until Reset
}

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("github: %s rate limit exhausted (%d on %s %s); it resets at %s, in %s",
		e.Resource, e.StatusCode, e.Method, e.Endpoint,
		e.Reset.UTC().Format(time.RFC3339), e.wait.Round(time.Second))
}

// SecondaryRateLimitError reports a secondary (abuse) rate limit that was
// still in force after the bounded number of retries, or that asked for a
// wait longer than the transport's MaxWait.
type SecondaryRateLimitError struct {
	// RetryAfter is the wait GitHub asked for (Retry-After) or, without that
	// header, the wait the transport would have applied next.
	RetryAfter time.Duration
	// Retries is how many times the request had been retried.
	Retries int
	// StatusCode is GitHub's status, 403 or 429.
	StatusCode int
	// Method and Endpoint identify the request (Endpoint is templated).
	Method, Endpoint string
	// Message is GitHub's error message, when the body carried one.
	Message string
}

func (e *SecondaryRateLimitError) Error() string {
	msg := fmt.Sprintf("github: secondary rate limit (%d on %s %s) after %d retries; retry after %s",
		e.StatusCode, e.Method, e.Endpoint, e.Retries, e.RetryAfter.Round(time.Second))
	if e.Message != "" {
		msg += ": " + e.Message
	}
	return msg
}

// rateLimit describes a rate-limited response.
type rateLimit struct {
	primary    bool
	resource   string        // primary only
	reset      time.Time     // primary only; zero if the header was missing
	retryAfter time.Duration // from Retry-After; valid if hasRetryAfter
	hasRetry   bool
	message    string // GitHub's message, if the body was JSON with one
}

// detectRateLimit reports whether resp is a rate-limit rejection. For 403 and
// 429 it may peek at the body; the body is restored so the caller can still
// read all of it.
func detectRateLimit(resp *http.Response, now time.Time) (*rateLimit, error) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return nil, nil
	}
	rl := &rateLimit{}
	rl.retryAfter, rl.hasRetry = parseRetryAfter(resp.Header.Get(headerRetryAfter), now)

	if strings.TrimSpace(resp.Header.Get(headerRateRemaining)) == "0" {
		rl.primary = true
		rl.resource = resp.Header.Get(headerRateResource)
		if rl.resource == "" {
			rl.resource = "core"
		}
		if secs, err := strconv.ParseInt(strings.TrimSpace(resp.Header.Get(headerRateReset)), 10, 64); err == nil {
			rl.reset = time.Unix(secs, 0)
		}
		return rl, nil
	}

	body, err := peekBody(resp, rateLimitBodyPeek)
	if err != nil {
		return nil, fmt.Errorf("read %d response body: %w", resp.StatusCode, err)
	}
	if strings.Contains(strings.ToLower(string(body)), secondaryLimitMessage) {
		rl.message = errorMessage(body)
		return rl, nil
	}
	if rl.hasRetry || resp.StatusCode == http.StatusTooManyRequests {
		// Retry-After on a 403/429, or a bare 429 Too Many Requests: GitHub
		// asks the client to slow down without saying which limit.
		rl.message = errorMessage(body)
		return rl, nil
	}
	return nil, nil // an ordinary 403: permissions
}

// parseRetryAfter reads Retry-After as delta-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			secs = 0
		}
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// peekBody reads up to limit bytes of resp.Body and puts them back in front
// of the rest, so the body reads as if untouched.
func peekBody(resp *http.Response, limit int64) ([]byte, error) {
	if resp.Body == nil || resp.Body == http.NoBody {
		return nil, nil
	}
	buf, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), resp.Body), resp.Body}
	return buf, err
}

// errorMessage extracts "message" from a GitHub JSON error body, best effort.
func errorMessage(body []byte) string {
	var doc struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return ""
	}
	return doc.Message
}
