package forge

import "github.com/gorilla/mux"

// routesReleases serves releases.
func (f *Forge) routesReleases(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
