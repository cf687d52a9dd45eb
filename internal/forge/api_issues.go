package forge

import "github.com/gorilla/mux"

// routesIssues serves issues.
func (f *Forge) routesIssues(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
