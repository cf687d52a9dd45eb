package forge

import "github.com/gorilla/mux"

// routesGitHTTP serves git smart HTTP.
func (f *Forge) routesGitHTTP(root *mux.Router) {
	_ = root
}
