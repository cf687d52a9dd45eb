package forge

import "github.com/gorilla/mux"

// routesReviews serves pull request reviews.
func (f *Forge) routesReviews(api *mux.Router) {
	_ = api // TODO(forge): endpoints arrive with this file's owner.
}
