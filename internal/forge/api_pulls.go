package forge

import "github.com/gorilla/mux"

// routesPulls serves pull requests (create, list, get, update, merge).
func (f *Forge) routesPulls(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
