package forge

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"sync"

	"github.com/gorilla/mux"
)

// maxManifestForm bounds the manifest form a page may post.
const maxManifestForm = 64 << 10

// maxPendingManifests bounds the codes waiting for their conversion.
const maxPendingManifests = 64

// appManifest is the part of a GitHub App manifest the forge reads.
type appManifest struct {
	Name           string `json:"name"`
	URL            string `json:"url"`
	RedirectURL    string `json:"redirect_url"`
	HookAttributes struct {
		URL string `json:"url"`
	} `json:"hook_attributes"`
	DefaultEvents []string `json:"default_events"`
	// CallbackURLs are where the App's user authorization may send the
	// browser back (the web catalog's sign-in)
	CallbackURLs []string `json:"callback_urls"`
}

// appManifests are the manifests posted and not yet converted, by code.
type appManifests struct {
	mu      sync.Mutex
	pending map[string]appManifest
}

func (f *Forge) manifests() *appManifests { return &f.appManifests }

// take removes and returns the manifest of code: a code converts once.
func (m *appManifests) take(code string) (appManifest, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	am, ok := m.pending[code]
	delete(m.pending, code)
	return am, ok
}

// routesAppManifests serves the web side of the App manifest flow: a page
// posts a manifest, the forge "creates" the App and sends the browser back to
// the manifest's redirect_url with a single-use code.
func (f *Forge) routesAppManifests(root *mux.Router) {
	root.HandleFunc("/settings/apps/new", f.webNewAppFromManifest).Methods(http.MethodPost)
	root.HandleFunc("/organizations/{org}/settings/apps/new", f.webNewAppFromManifest).Methods(http.MethodPost)
}

func (f *Forge) webNewAppFromManifest(w http.ResponseWriter, r *http.Request) {
	if f.refuseWhileHeld(w, false) {
		return
	}
	if org := mux.Vars(r)["org"]; org != "" {
		if _, ok := f.Account(org); !ok {
			http.NotFound(w, r)
			return
		}
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxManifestForm)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "bad form: "+err.Error(), http.StatusBadRequest)
		return
	}
	var am appManifest
	if err := json.Unmarshal([]byte(r.PostForm.Get("manifest")), &am); err != nil {
		http.Error(w, "bad manifest: "+err.Error(), http.StatusUnprocessableEntity)
		return
	}
	back, err := url.Parse(am.RedirectURL)
	if err != nil || (back.Scheme != "http" && back.Scheme != "https") || back.Host == "" || am.Name == "" {
		http.Error(w, "manifest needs a name and an http(s) redirect_url", http.StatusUnprocessableEntity)
		return
	}
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	code := hex.EncodeToString(b[:])
	m := f.manifests()
	m.mu.Lock()
	if m.pending == nil {
		m.pending = map[string]appManifest{}
	}
	if len(m.pending) >= maxPendingManifests {
		m.mu.Unlock()
		http.Error(w, "too many App manifests waiting for their conversion", http.StatusTooManyRequests)
		return
	}
	m.pending[code] = am
	m.mu.Unlock()
	q := back.Query()
	q.Set("code", code)
	if s := r.URL.Query().Get("state"); s != "" {
		q.Set("state", s)
	}
	back.RawQuery = q.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}
