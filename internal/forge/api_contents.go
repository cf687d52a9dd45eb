package forge

import "github.com/gorilla/mux"

// routesContents serves repository contents.
func (f *Forge) routesContents(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
