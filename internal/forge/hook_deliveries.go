package forge

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
)

// What a repository hook's and the App's webhook deliveries share: their
// JSON, their listing by cursor, their lookup by id and their redelivery.

// deliveryObject is GitHub's hook delivery; full adds the request and
// the response.
func deliveryObject(d Delivery, full bool, self string) map[string]any {
	obj := map[string]any{
		"id": d.Num, "guid": d.ID, "delivered_at": ts(d.DeliveredAt), "redelivery": d.Redelivery,
		"duration": d.Duration.Seconds(), "status": deliveryStatus(d), "status_code": d.Status,
		"event": d.Event, "action": jsonNullStr(d.Action), "installation_id": jsonNullID(d.InstallationID),
		"repository_id": jsonNullID(d.RepoID), "throttled_at": nil,
	}
	if full {
		headers := d.ReqHeaders
		if headers == nil {
			headers = map[string]string{}
		}
		respHeaders := d.RespHeaders
		if respHeaders == nil {
			respHeaders = map[string]string{}
		}
		obj["url"] = self
		obj["request"] = map[string]any{"headers": headers, "payload": json.RawMessage(d.Payload)}
		obj["response"] = map[string]any{"headers": respHeaders, "payload": d.RespBody}
	}
	return obj
}

func jsonNullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// deliveryOutcome classifies a delivery as GitHub's status filter does:
// success is a status_code of 200–399, failure 400–599; a delivery that
// got no answer (status_code 0) is neither.
func deliveryOutcome(d Delivery) string {
	switch {
	case d.Status >= 200 && d.Status < 400:
		return "success"
	case d.Status >= 400 && d.Status < 600:
		return "failure"
	}
	return ""
}

// writeDeliveries answers one page of deliveries (newest first), as
// GitHub pages them: per_page, a cursor (the id of the last delivery of
// the previous page) and a Link to the next page; status filters them.
func (f *Forge) writeDeliveries(w http.ResponseWriter, r *http.Request, all []Delivery) {
	perPage, _ := page(r)
	q := r.URL.Query()
	if status := q.Get("status"); status != "" {
		if status != "success" && status != "failure" {
			validationFailed(w, "HookDelivery", "status", "invalid", "status must be success or failure")
			return
		}
		var kept []Delivery
		for _, d := range all {
			if deliveryOutcome(d) == status {
				kept = append(kept, d)
			}
		}
		all = kept
	}
	start := 0
	if c := q.Get("cursor"); c != "" {
		n, err := strconv.ParseInt(c, 10, 64)
		if err != nil {
			writeError(w, http.StatusBadRequest, "Invalid cursor")
			return
		}
		for start < len(all) && all[start].Num >= n {
			start++
		}
	}
	end := min(start+perPage, len(all))
	out := []map[string]any{}
	for _, d := range all[start:end] {
		out = append(out, deliveryObject(d, false, ""))
	}
	if end < len(all) {
		q.Set("per_page", strconv.Itoa(perPage))
		q.Set("cursor", strconv.FormatInt(all[end-1].Num, 10))
		next := &url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
		w.Header().Set("Link", "<"+f.BaseURL()+next.String()+`>; rel="next"`)
	}
	writeJSON(w, r, http.StatusOK, out)
}

// deliveryByID is the delivery of list named by {delivery}; 404 when
// there is none.
func deliveryByID(w http.ResponseWriter, r *http.Request, list []Delivery) (Delivery, bool) {
	n, ok := intVar(w, r, "delivery")
	if !ok {
		return Delivery{}, false
	}
	for _, d := range list {
		if d.Num == n {
			return d, true
		}
	}
	notFound(w)
	return Delivery{}, false
}

// again is a redelivery of d: the same GUID, event and payload to the
// same receiver, marked as a redelivery; it gets an id of its own when
// it is made.
func (d Delivery) again() *Delivery {
	return &Delivery{ID: d.ID, Event: d.Event, Action: d.Action, Payload: d.Payload, Repo: d.Repo,
		RepoID: d.RepoID, InstallationID: d.InstallationID, HookID: d.HookID, Redelivery: true, target: d.target}
}
