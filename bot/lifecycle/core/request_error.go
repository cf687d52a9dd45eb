package core

import (
	"fmt"
)

// RequestError is an error caused by what was asked — a package that
// already exists, a revision that does not, an invalid name — rather than
// by the bot or GitHub. Its message is written for the person who asked and
// is safe to show them as is.
type RequestError struct {
	Msg string
	// Err is the cause, when a caller may want it (a *flow.Refusal).
	Err error
}

func (e *RequestError) Error() string { return e.Msg }

func (e *RequestError) Unwrap() error { return e.Err }

func RequestErrorf(format string, a ...any) error {
	return &RequestError{Msg: fmt.Sprintf(format, a...)}
}
