package forge

import "github.com/gorilla/mux"

// routesReactions serves reactions.
func (f *Forge) routesReactions(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
