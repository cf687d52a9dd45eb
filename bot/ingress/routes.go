package ingress

import (
	"net/http"
	"strings"

	"github.com/gorilla/mux"
)

// Paths served by Routes.
const (
	HookPath    = "/api/github/hook"
	HealthzPath = "/healthz"
	ReadyzPath  = "/readyz"
	MetricsPath = "/metrics"
)

// Routes returns the server's HTTP handler: POST /api/github/hook,
// GET /healthz, GET /readyz and GET /metrics. Other methods on those paths
// are answered 405, other paths 404.
func (s *Server) Routes() http.Handler {
	r := mux.NewRouter()
	r.NotFoundHandler = http.HandlerFunc(notFound)

	r.Handle(HookPath, http.HandlerFunc(s.serveHook)).Methods(http.MethodPost)
	r.Handle(HookPath, methodNotAllowed(http.MethodPost))

	get := []string{http.MethodGet, http.MethodHead}
	r.Handle(HealthzPath, http.HandlerFunc(s.serveHealthz)).Methods(get...)
	r.Handle(HealthzPath, methodNotAllowed(get...))
	r.Handle(ReadyzPath, http.HandlerFunc(s.serveReadyz)).Methods(get...)
	r.Handle(ReadyzPath, methodNotAllowed(get...))
	r.Handle(MetricsPath, s.metrics.Handler()).Methods(get...)
	r.Handle(MetricsPath, methodNotAllowed(get...))
	return r
}

// methodNotAllowed answers 405 with the Allow header listing allowed.
func methodNotAllowed(allowed ...string) http.Handler {
	allow := strings.Join(allowed, ", ")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeMessage(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed; use "+allow)
	})
}

func notFound(w http.ResponseWriter, _ *http.Request) {
	writeMessage(w, http.StatusNotFound, "not found")
}
