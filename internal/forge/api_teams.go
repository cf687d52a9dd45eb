package forge

import "github.com/gorilla/mux"

// routesTeams serves team membership.
func (f *Forge) routesTeams(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
