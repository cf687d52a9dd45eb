package forge

import (
	"net/http"
	"sync"
)

// The forge has one App. A porchbot serving in the embedded mode holds it:
// its key and webhook secret are the App's, and a manifest flow (porchbot
// setup pointed at this forge) would replace them, after which every
// webhook the running porchbot gets is refused. While held, the manifest
// flow is refused (409) and says why; GET /_forge/app tells a tool before
// it starts one.

// appHold is who holds the forge's App ("" nobody).
type appHold struct {
	mu sync.Mutex
	by string
}

// HoldApp marks the forge's App as held by by (a running porchbot of the
// embedded mode): the manifest flow is refused until the forge stops.
func (f *Forge) HoldApp(by string) {
	f.appHold.mu.Lock()
	f.appHold.by = by
	f.appHold.mu.Unlock()
}

// appHeldBy is who holds the App, "" when nobody does.
func (f *Forge) appHeldBy() string {
	f.appHold.mu.Lock()
	defer f.appHold.mu.Unlock()
	return f.appHold.by
}

// appHeldMessage is the refusal of a manifest flow while the App is held.
func appHeldMessage(by string) string {
	return "This local forge's App belongs to " + by + ": creating an App here would replace its key and webhook " +
		"secret, and every webhook would be refused afterwards. Run porchbot setup against GitHub (or GitHub " +
		"Enterprise Server); the embedded mode needs no setup."
}

// refuseWhileHeld answers 409 when the App is held; it says whether it did.
func (f *Forge) refuseWhileHeld(w http.ResponseWriter, api bool) bool {
	by := f.appHeldBy()
	if by == "" {
		return false
	}
	if api {
		writeError(w, http.StatusConflict, appHeldMessage(by))
	} else {
		http.Error(w, appHeldMessage(by), http.StatusConflict)
	}
	return true
}

// handleAppHold answers GET /_forge/app: {"heldBy": "..."} ("" when free).
func (f *Forge) handleAppHold(w http.ResponseWriter, r *http.Request) {
	writeRaw(w, http.StatusOK, map[string]string{"heldBy": f.appHeldBy()})
}
