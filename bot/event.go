package bot

import (
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
	// Payload is the go-github typed event (*github.PushEvent, ...). It is
	// decoded by the worker and set before a Handler runs; it is nil while
	// the event is being admitted (for instance when a KeyFunc sees it).
	Payload any
	// Raw is the request body, exactly as signed.
	Raw []byte
	// Received is when the request reached the server.
	Received time.Time
}

// A KeyFunc names the ordering key of an event: events with the same key are
// handled one at a time in arrival order, events with different keys may be
// handled in parallel. It runs at ingress, before the typed payload is
// decoded, so it may use every field of the event but Payload. It must be
// cheap and must not retain the event.
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
