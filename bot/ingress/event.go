package ingress

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Event is one accepted webhook delivery.
type Event struct {
	// Name is the X-GitHub-Event header: push, pull_request, ...
	Name string
	// Action is the payload's top-level "action", empty for events without one.
	Action string
	// DeliveryID is the X-GitHub-Delivery header.
	DeliveryID string
	// InstallationID is the payload's installation.id, 0 when it has none.
	InstallationID int64
	// Repo is the payload's repository.full_name (owner/name), empty when
	// the event is not about one repository.
	Repo string
	// Payload is the go-github typed event (*github.PushEvent, ...) once
	// decoded: Decode sets it. It is nil until then.
	Payload any
	// Raw is the request body, exactly as signed. Like an http.Request's
	// body it belongs to the server: it is valid until the handler returns,
	// then its buffer is reused. Copy it (bytes.Clone) to keep it, and call
	// Decode before returning if the typed event is needed later.
	Raw []byte
	// Received is when the request reached the server.
	Received time.Time

	body *bodyBuffer // holds Raw; recycled after the handler returns
}

// ErrEventReleased is returned by Decode on an event whose handler has
// returned without decoding it: its Raw body is gone.
var ErrEventReleased = errors.New("event released: Decode must be called before the handler returns")

// Decode returns the go-github typed event of ev (*github.PushEvent for
// push, ...), decoding Raw into Payload on the first call; later calls
// return Payload. The server does not decode ahead of the handler: decoding
// a large payload costs far more than receiving it, so only handlers that
// need the typed event pay for it. Decode is not safe for concurrent use.
func (ev *Event) Decode() (any, error) {
	if ev.Payload != nil {
		return ev.Payload, nil
	}
	if ev.Raw == nil {
		return nil, fmt.Errorf("decode %s payload: %w", ev.Name, ErrEventReleased)
	}
	payload, err := decodePayload(ev.Name, ev.Raw)
	if err != nil {
		return nil, fmt.Errorf("decode %s payload: %w", ev.Name, err)
	}
	ev.Payload = payload
	return payload, nil
}

// A KeyFunc names the ordering key of an event: events with the same key are
// handled one at a time in arrival order, events with different keys may be
// handled in parallel. It runs at ingress, on the request path: it must be
// cheap (calling ev.Decode there would put the typed decode on that path)
// and must not retain the event.
type KeyFunc func(ev *Event) string

// RepositoryKey is the default KeyFunc: the repository full name, or
// "installation/<id>" for events without a repository (installation,
// installation_repositories). An event with neither gets a key of its own,
// "delivery/<id>", as there is nothing to order it against.
func RepositoryKey(ev *Event) string {
	switch {
	case ev.Repo != "":
		return ev.Repo
	case ev.InstallationID != 0:
		return "installation/" + strconv.FormatInt(ev.InstallationID, 10)
	default:
		return "delivery/" + ev.DeliveryID
	}
}
