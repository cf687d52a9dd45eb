package forge

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"net/http"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesAppManifestConversions serves POST /app-manifests/{code}/conversions.
func (f *Forge) routesAppManifestConversions(api *mux.Router) {
	api.HandleFunc("/app-manifests/{code}/conversions", f.convertAppManifest).Methods(http.MethodPost)
}

// convertAppManifest completes the manifest flow: the forge's one App gets a
// fresh key pair and webhook secret, and the answer carries the private key,
// as GitHub's does once.
func (f *Forge) convertAppManifest(w http.ResponseWriter, r *http.Request) {
	if f.refuseWhileHeld(w, true) {
		return
	}
	am, ok := f.manifests().take(mux.Vars(r)["code"])
	if !ok {
		notFound(w)
		return
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	var sb [20]byte
	if _, err := rand.Read(sb[:]); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	secret := hex.EncodeToString(sb[:])
	id, slug, hook := int64(1), am.Name, am.HookAttributes.URL
	if old := f.appInfo(); old != nil { // the forge has one App: porchbot's
		id, slug, hook = old.ID, old.Slug, old.WebhookURL
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	app, err := f.RegisterApp(id, slug, pubPEM, hook, []byte(secret))
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	f.SetAppEvents(am.DefaultEvents) // the App hears what its manifest asked for
	if len(am.CallbackURLs) > 0 {
		f.SetAppCallbackURLs(am.CallbackURLs...)
	}
	privPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	created := ts(time.Unix(1700000000, 0).UTC())
	writeJSON(w, r, http.StatusCreated, &appConversion{
		App: github.App{
			ID: github.Int64(app.ID), Slug: github.String(app.Slug), Name: github.String(app.Name),
			NodeID: github.String(nodeID("App", app.ID)), Owner: f.userObject(app.Owner),
			Description: github.String("porchbot on the local forge"),
			ExternalURL: github.String(am.URL), HTMLURL: github.String(f.webBase() + "/apps/" + app.Slug),
			Permissions: appPermissions(), Events: f.appEvents(), CreatedAt: created, UpdatedAt: created,
		},
		ClientID: app.ClientID, ClientSecret: app.ClientSecret,
		WebhookSecret: secret, PEM: string(privPEM),
	})
}

// appConversion is GitHub's answer to a manifest conversion: the App and its
// credentials.
type appConversion struct {
	github.App
	ClientID      string `json:"client_id"`
	ClientSecret  string `json:"client_secret"`
	WebhookSecret string `json:"webhook_secret"`
	PEM           string `json:"pem"`
}
