// Package handlers holds porchbot's webhook handlers: one thin handler per
// GitHub event (push, pull_request, status, …), each decoding its go-github
// payload, logging it and handing it to a small reactor interface (the App
// in package bot implements them all), and the event table they form
// (DefaultHandlers: app.yaml's default_events, which
// TestAppManifestMatchesHandlers keeps in step with the manifest and
// docs/app-permissions.md).
package handlers
