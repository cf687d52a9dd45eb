package ingress

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sirupsen/logrus"
)

// Delivery headers, in canonical MIME form so that lookups do not allocate.
const (
	headerEvent    = "X-Github-Event"
	headerDelivery = "X-Github-Delivery"
)

const (
	eventPing = "ping"
	// maxDeliveryIDLen bounds a remembered delivery id (GitHub's are
	// 36-character GUIDs), and so the memory of the delivery log.
	maxDeliveryIDLen = 128
)

// serveHook is POST /api/github/hook; see the package documentation for the
// rules it applies, in order.
func (s *Server) serveHook(w http.ResponseWriter, r *http.Request) {
	received := time.Now()
	name := r.Header.Get(headerEvent) // only a metric label until authenticated

	buf, err := s.readBody(w, r)
	if err != nil {
		if errors.Is(err, errBodyTooLarge) {
			s.reject(w, r, name, http.StatusRequestEntityTooLarge, outcomeTooLarge, err)
			return
		}
		s.reject(w, r, name, http.StatusBadRequest, outcomeBadRequest, err)
		return
	}
	if !s.ingest(w, r, name, buf, received) {
		s.bodies.put(buf)
	}
}

// ingest applies the ingress rules to a delivery whose body is in buf, and
// reports whether the event was queued, taking buf with it.
func (s *Server) ingest(w http.ResponseWriter, r *http.Request, name string, buf *bodyBuffer, received time.Time) bool {
	body := buf.data
	sha1Present := r.Header.Get(headerSignatureSHA1) != ""
	if err := s.verifier.verify(r.Header.Get(headerSignature256), sha1Present, body); err != nil {
		s.reject(w, r, name, http.StatusUnauthorized, outcomeUnauthorized, err)
		return false
	}

	delivery := r.Header.Get(headerDelivery)
	switch {
	case name == "":
		s.reject(w, r, name, http.StatusBadRequest, outcomeBadRequest, errors.New("missing X-GitHub-Event header"))
		return false
	case delivery == "":
		s.reject(w, r, name, http.StatusBadRequest, outcomeBadRequest, errors.New("missing X-GitHub-Delivery header"))
		return false
	case len(delivery) > maxDeliveryIDLen:
		s.reject(w, r, name, http.StatusBadRequest, outcomeBadRequest, errors.New("X-GitHub-Delivery header too long"))
		return false
	}

	env, err := parseEnvelope(body)
	if err != nil {
		s.reject(w, r, name, http.StatusBadRequest, outcomeBadRequest, fmt.Errorf("malformed payload: %w", err))
		return false
	}

	if name == eventPing {
		s.count(name, outcomePing)
		s.log.WithFields(logrus.Fields{"delivery": delivery, "event": name}).Info("ping received")
		writeBody(w, http.StatusOK, answerPong)
		return false
	}
	if _, ok := s.handlers[name]; !ok {
		s.count(name, outcomeIgnored)
		if s.log.IsLevelEnabled(logrus.DebugLevel) {
			s.log.WithFields(logrus.Fields{"delivery": delivery, "event": name}).Debug("event ignored: no handler")
		}
		writeMessage(w, http.StatusAccepted, "event "+name+" is not handled; ignored")
		return false
	}

	ev := &Event{
		Name:           name,
		Action:         env.action,
		DeliveryID:     delivery,
		InstallationID: env.installationID,
		Repo:           env.repo,
		Raw:            body,
		Received:       received,
		body:           buf,
	}
	return s.admit(w, r, ev)
}

// admit queues ev unless it is a duplicate or the server cannot take it,
// and reports whether it did.
//
// A duplicate is answered 200 even while the server shuts down: it was
// accepted, and a 503 would invite a redelivery that another replica, which
// has not seen it, would process again.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, ev *Event) bool {
	key := s.key(ev)
	err := s.deliveries.admit(ev.DeliveryID, func() error {
		if s.currentState() == stateNew {
			return errNotStarted
		}
		return s.queue.push(key, ev) // errQueueClosed once stopping
	})
	switch {
	case err == nil:
	case errors.Is(err, errDuplicate):
		s.count(ev.Name, outcomeDuplicate)
		s.log.WithFields(eventFields(ev)).Info("duplicate delivery ignored")
		writeMessage(w, http.StatusOK, "duplicate delivery "+ev.DeliveryID+"; already accepted")
		return false
	case errors.Is(err, errQueueFull):
		s.reject(w, r, ev.Name, http.StatusServiceUnavailable, outcomeQueueFull, err)
		return false
	case errors.Is(err, errQueueClosed):
		s.reject(w, r, ev.Name, http.StatusServiceUnavailable, outcomeUnavailable, errShuttingDown)
		return false
	case errors.Is(err, errNotStarted):
		s.reject(w, r, ev.Name, http.StatusServiceUnavailable, outcomeUnavailable, err)
		return false
	default:
		s.reject(w, r, ev.Name, http.StatusInternalServerError, outcomeFailed, err)
		return false
	}

	s.count(ev.Name, outcomeQueued)
	if s.log.IsLevelEnabled(logrus.DebugLevel) {
		s.log.WithFields(eventFields(ev)).WithField("key", key).Debug("delivery queued")
	}
	writeBody(w, http.StatusAccepted, answerQueued)
	return true
}

// reject answers status with err's message and counts outcome.
func (s *Server) reject(w http.ResponseWriter, r *http.Request, event string, status int, outcome string, err error) {
	s.count(event, outcome)
	if s.log.IsLevelEnabled(logrus.WarnLevel) {
		s.log.WithFields(logrus.Fields{
			"delivery": r.Header.Get(headerDelivery),
			"event":    event,
			"remote":   r.RemoteAddr,
			"status":   status,
		}).WithError(err).Warn("webhook delivery refused")
	}
	writeMessage(w, status, err.Error())
}
