package forge

import "github.com/gorilla/mux"

// routesComments serves issue comments.
func (f *Forge) routesComments(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
