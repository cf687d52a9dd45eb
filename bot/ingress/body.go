package ingress

import (
	"errors"
	"fmt"
	"io"
	"net/http"
)

var errBodyTooLarge = errors.New("request body too large")

// readBody reads the request body through http.MaxBytesReader capped at
// the server's MaxBodyBytes, into a recycled buffer of the right size when
// the client sent a Content-Length (GitHub always does). It returns
// errBodyTooLarge (wrapped) for a larger body. The caller owns the buffer
// and must put it back.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) (*bodyBuffer, error) {
	limit := s.opts.MaxBodyBytes
	if r.ContentLength > limit {
		return nil, fmt.Errorf("%w: Content-Length %d exceeds %d bytes", errBodyTooLarge, r.ContentLength, limit)
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	if r.ContentLength >= 0 {
		buf := s.bodies.get(int(r.ContentLength))
		if _, err := io.ReadFull(body, buf.data); err != nil {
			s.bodies.put(buf)
			return nil, fmt.Errorf("read body: %w", err)
		}
		return buf, nil
	}
	data, err := io.ReadAll(body)
	if err != nil {
		if maxErr, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, fmt.Errorf("%w: more than %d bytes", errBodyTooLarge, maxErr.Limit)
		}
		return nil, fmt.Errorf("read body: %w", err)
	}
	return &bodyBuffer{data: data, class: -1}, nil
}
