package hub

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is GitHub's answer to a call that failed: its HTTP status and
// message. API implementations return one for every answered call that
// failed (errors.As finds it), wrapping what their client returned.
type Error struct {
	Status int
	// Message is GitHub's message ("" when it gave none).
	Message string
	// Codes are the codes of GitHub's error details ("already_exists",
	// "missing_field", …).
	Codes []string
	// RateLimited: the call was refused for a rate limit, primary or
	// secondary (worth trying again later, unlike other 403s).
	RateLimited bool
	Err         error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Err.Error()
	}
	return fmt.Sprintf("%d %s", e.Status, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// StatusOf is the HTTP status GitHub answered err with (0 when err is nil
// or no answer: a network error, a cancelled context).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// IsRateLimited reports that GitHub refused the call for a rate limit.
func IsRateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.RateLimited
}

// IsNotFound reports that GitHub answered 404.
func IsNotFound(err error) bool { return StatusOf(err) == http.StatusNotFound }

// IsUnprocessable reports that GitHub answered 422 (the request was
// understood and refused: a ref or release that exists, a pull request
// with no commits).
func IsUnprocessable(err error) bool { return StatusOf(err) == http.StatusUnprocessableEntity }
