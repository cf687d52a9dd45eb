package github

import (
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"time"
)

// Retry policy
//
// A request is retried only when doing so cannot duplicate its effect:
//
//   - GET, HEAD, OPTIONS, PUT, PATCH and DELETE are treated as idempotent
//     (GitHub's PATCH and PUT set state; DELETE of a deleted thing is a 404).
//     They are retried on 500, 502, 503, 504, on timeouts and on transient
//     network errors.
//   - POST is not idempotent on GitHub (it creates comments, reviews, pull
//     requests...). It is retried only when GitHub certainly did not act on
//     it: 502, 503 and 504 (the gateway never reached the application), rate
//     limit rejections, and dial errors (the request never left this host).
//     It is not retried after a timeout, a connection reset or a 500, since
//     the request may have been processed.
//
// Backoff is exponential with full jitter: the n-th retry (n from 0) waits a
// uniformly random duration in [0, min(MaxDelay, BaseDelay·2ⁿ)).

// mayReplay reports whether method is safe to send again after it may have
// reached GitHub.
func mayReplay(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions,
		http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// isMutating reports whether method changes state on GitHub.
func isMutating(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete:
		return true
	}
	return false
}

// retryableStatus reports whether a response status is worth retrying.
func retryableStatus(method string, code int) bool {
	switch code {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	case http.StatusInternalServerError:
		return mayReplay(method)
	}
	return false
}

// retryableError reports whether a transport error is worth retrying, and a
// short reason for the logs. attemptTimedOut is set when the transport's own
// per-attempt timeout, not the caller's context, cut the attempt short.
func retryableError(method string, err error, attemptTimedOut bool) (bool, string) {
	if isDialError(err) {
		return true, "dial error"
	}
	if !mayReplay(method) {
		return false, ""
	}
	if attemptTimedOut {
		return true, "attempt timeout"
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true, "network timeout"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNABORTED) ||
		errors.Is(err, syscall.EPIPE) {
		return true, "connection lost"
	}
	return false, ""
}

// isDialError reports whether err happened while connecting, before any byte
// of the request was sent.
func isDialError(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) && (dns.IsTemporary || dns.IsTimeout) {
		return true
	}
	return false
}

// backoff is the full-jitter wait before retry number n (from 0).
func (t *Transport) backoff(n int) time.Duration {
	ceiling := t.maxDelay
	if n < 32 {
		if d := t.baseDelay << n; d > 0 && d < ceiling {
			ceiling = d
		}
	}
	return time.Duration(t.rand() * float64(ceiling))
}
