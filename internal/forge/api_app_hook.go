package forge

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"
)

// maxAppDeliveries bounds the App's delivery history the API shows
// (GitHub keeps three days of it).
const maxAppDeliveries = 10000

// routesAppHook serves the App's own webhook deliveries: listed newest
// first by cursor, read in full, and redelivered, with the App's JWT only,
// as GitHub does.
func (f *Forge) routesAppHook(api *mux.Router) {
	api.HandleFunc("/app/hook/deliveries", f.appOnly(f.listAppDeliveries)).Methods(http.MethodGet)
	api.HandleFunc("/app/hook/deliveries/{delivery:[0-9]+}", f.appOnly(f.getAppDelivery)).Methods(http.MethodGet)
	api.HandleFunc("/app/hook/deliveries/{delivery:[0-9]+}/attempts", f.appOnly(f.redeliverAppDelivery)).Methods(http.MethodPost)
}

// appDeliveries are the App's latest deliveries, newest first: a dropped
// one and one its receiver did not answer 2xx are among them, failed.
func (d *deliverer) appDeliveries() []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := min(len(d.log), maxAppDeliveries)
	out := make([]Delivery, 0, n)
	for i := len(d.log) - 1; i >= len(d.log)-n; i-- {
		out = append(out, d.log[i])
	}
	return out
}

func (f *Forge) listAppDeliveries(w http.ResponseWriter, r *http.Request) {
	f.writeDeliveries(w, r, f.hooks.appDeliveries())
}

func (f *Forge) getAppDelivery(w http.ResponseWriter, r *http.Request) {
	if d, ok := deliveryByID(w, r, f.hooks.appDeliveries()); ok {
		self := f.apiBase() + "/app/hook/deliveries/" + strconv.FormatInt(d.Num, 10)
		writeJSON(w, r, http.StatusOK, deliveryObject(d, true, self))
	}
}

// redeliverAppDelivery sends a delivery to the App's webhook again (the
// same GUID and payload, a new id, marked as a redelivery); 202 as on
// GitHub. The webhook is signed with the App's secret as it is now.
func (f *Forge) redeliverAppDelivery(w http.ResponseWriter, r *http.Request) {
	if d, ok := deliveryByID(w, r, f.hooks.appDeliveries()); ok {
		f.hooks.queueDelivery(d.again())
		writeJSON(w, r, http.StatusAccepted, map[string]any{})
	}
}
