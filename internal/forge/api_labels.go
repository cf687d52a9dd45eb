package forge

import "github.com/gorilla/mux"

// routesLabels serves labels.
func (f *Forge) routesLabels(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
