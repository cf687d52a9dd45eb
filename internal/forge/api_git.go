package forge

import "github.com/gorilla/mux"

// routesGitData serves git data (refs, commits, trees, blobs).
func (f *Forge) routesGitData(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
