package forge

import "github.com/gorilla/mux"

// routesChecks serves check runs and check suites.
func (f *Forge) routesChecks(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
