package forge

import "github.com/gorilla/mux"

// routesCollaborators serves collaborator permission.
func (f *Forge) routesCollaborators(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
