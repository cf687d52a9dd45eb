package forge

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"
)

// routesHooks serves repository webhooks: CRUD, their config, pings, and
// their deliveries (listed, read and redelivered), as GitHub does. Only
// repository admins see and manage hooks (an installation does not: the
// App has no repository_hooks permission).
func (f *Forge) routesHooks(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/hooks", f.repoHandler(PermRead, hookAdmin(f.listHooks))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/hooks", f.repoHandler(PermRead, hookAdmin(withBody(f.createHook)))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}", f.repoHandler(PermRead, hookAdmin(f.getHook))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}", f.repoHandler(PermRead, hookAdmin(f.editHook))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}", f.repoHandler(PermRead, hookAdmin(f.deleteHook))).Methods(http.MethodDelete)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/config", f.repoHandler(PermRead, hookAdmin(f.getHookConfig))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/config", f.repoHandler(PermRead, hookAdmin(f.editHookConfig))).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/pings", f.repoHandler(PermRead, hookAdmin(f.pingHook))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/deliveries", f.repoHandler(PermRead, hookAdmin(f.listHookDeliveries))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}", f.repoHandler(PermRead, hookAdmin(f.getHookDelivery))).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/hooks/{id}/deliveries/{delivery}/attempts", f.repoHandler(PermRead, hookAdmin(f.redeliverHook))).Methods(http.MethodPost)
}

// maxHookURL bounds a hook's URL.
const maxHookURL = 2048

type hookConfigRequest struct {
	URL         *string `json:"url"`
	ContentType *string `json:"content_type"`
	Secret      *string `json:"secret"`
	InsecureSSL any     `json:"insecure_ssl"` // "0"/"1" or a number
}

type hookRequest struct {
	Name         *string            `json:"name"`
	Config       *hookConfigRequest `json:"config"`
	Events       []string           `json:"events"`
	AddEvents    []string           `json:"add_events"`
	RemoveEvents []string           `json:"remove_events"`
	Active       *bool              `json:"active"`
}

// applyHookConfig sets on h the values a config request gives; it
// answers what is wrong ("" when valid).
func applyHookConfig(h *Hook, c *hookConfigRequest) string {
	if c.URL != nil {
		u, err := url.Parse(*c.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(*c.URL) > maxHookURL {
			return "url is not a valid http(s) URL"
		}
		h.URL = *c.URL
	}
	if c.ContentType != nil {
		if *c.ContentType != "json" && *c.ContentType != "form" {
			return "content_type must be json or form"
		}
		h.ContentType = *c.ContentType
	}
	if c.Secret != nil {
		h.Secret = *c.Secret
	}
	switch v := c.InsecureSSL.(type) {
	case nil:
	case string:
		if v != "0" && v != "1" {
			return "insecure_ssl must be 0 or 1"
		}
		h.InsecureSSL = v
	case float64:
		if v != 0 && v != 1 {
			return "insecure_ssl must be 0 or 1"
		}
		h.InsecureSSL = strconv.Itoa(int(v))
	default:
		return "insecure_ssl must be 0 or 1"
	}
	return ""
}

func hookEventsProblem(events []string) string {
	for _, e := range events {
		if e == "" || len(e) > 100 || strings.ContainsAny(e, " \t\n/") {
			return "events contain an invalid event name"
		}
	}
	return ""
}

func (f *Forge) hookConfigObject(h Hook) map[string]any {
	cfg := map[string]any{"url": h.URL, "content_type": h.ContentType, "insecure_ssl": h.InsecureSSL}
	if h.Secret != "" {
		cfg["secret"] = "********"
	}
	return cfg
}

// hookObject is GitHub's hook, with its last response taken from its
// latest delivery.
func (f *Forge) hookObject(repo *Repo, h Hook) map[string]any {
	api, _ := f.repoURLs(repo)
	self := api + "/hooks/" + strconv.FormatInt(h.ID, 10)
	last := map[string]any{"code": nil, "status": "unused", "message": nil}
	if ds := f.hooks.hookDeliveries(h.ID); len(ds) > 0 {
		last = map[string]any{"code": ds[0].Status, "status": deliveryStatus(ds[0]), "message": deliveryStatus(ds[0])}
		if ds[0].Status == 0 {
			last["code"] = nil
		}
	}
	return map[string]any{
		"type": "Repository", "id": h.ID, "name": "web", "active": h.Active, "events": h.Events,
		"config": f.hookConfigObject(h), "updated_at": ts(h.UpdatedAt), "created_at": ts(h.CreatedAt),
		"url": self, "test_url": self + "/test", "ping_url": self + "/pings", "deliveries_url": self + "/deliveries",
		"last_response": last,
	}
}

// deliveryStatus is GitHub's delivery status text.
func deliveryStatus(d Delivery) string {
	switch {
	case d.Dropped || d.Err != "":
		return "failed to connect to host"
	case d.Status >= 200 && d.Status < 300:
		return "OK"
	}
	return "Invalid HTTP Response: " + strconv.Itoa(d.Status)
}

// hookAdmin admits a repository admin. Anyone else who may read the
// repository is answered 404, as GitHub hides a repository's hooks.
// Served under repoHandler(PermRead, ...).
func hookAdmin(h repoHandlerFunc) repoHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
		if rc.perm < PermAdmin {
			notFound(w)
			return
		}
		h(w, r, rc)
	}
}

// hookByVar is the hook named by {id}; 404 when it is not the repository's.
func (f *Forge) hookByVar(rc *reqCtx) (Hook, bool) {
	id, ok := rc.intVar("id")
	if !ok {
		return Hook{}, false
	}
	h, found := f.repoHooks.get(rc.repo.ID, id)
	if !found {
		notFound(rc.w)
		return Hook{}, false
	}
	return h, true
}

func (f *Forge) listHooks(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	out := []map[string]any{}
	for _, h := range paginate(w, r, f.BaseURL(), f.repoHooks.list(rc.repo.ID)) {
		out = append(out, f.hookObject(rc.repo, h))
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (f *Forge) getHook(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	if h, ok := f.hookByVar(rc); ok {
		writeJSON(w, r, http.StatusOK, f.hookObject(rc.repo, h))
	}
}

func (f *Forge) createHook(w http.ResponseWriter, r *http.Request, rc *reqCtx, req hookRequest) {
	if req.Name != nil && *req.Name != "web" {
		validationFailed(w, "Hook", "name", "invalid", "name must be web")
		return
	}
	if req.Config == nil || req.Config.URL == nil || *req.Config.URL == "" {
		validationFailed(w, "Hook", "", "custom", "Config must contain URL for webhooks")
		return
	}
	now := f.now()
	h := &Hook{ID: f.newID(), RepoID: rc.repo.ID, Active: true, Events: []string{"push"}, ContentType: "form",
		InsecureSSL: "0", CreatedAt: now, UpdatedAt: now}
	if msg := applyHookConfig(h, req.Config); msg != "" {
		validationFailed(w, "Hook", "config", "custom", msg)
		return
	}
	if req.Events != nil {
		if msg := hookEventsProblem(req.Events); msg != "" || len(req.Events) == 0 {
			validationFailed(w, "Hook", "events", "invalid", "events must name at least one event")
			return
		}
		h.Events = dedupFold(req.Events)
	}
	if req.Active != nil {
		h.Active = *req.Active
	}
	switch err := f.repoHooks.add(h); {
	case errors.Is(err, errAlreadyExists):
		validationFailed(w, "Hook", "", "custom", "Hook already exists on this repository")
		return
	case errors.Is(err, errTooManyHooks):
		validationFailed(w, "Hook", "", "custom", "The \"push\" event cannot have more than 20 hooks")
		return
	}
	f.pingTo(rc.repo, *h, rc.actor())
	writeJSON(w, r, http.StatusCreated, f.hookObject(rc.repo, *h))
}

// dedupFold drops repeated names (case-insensitive), keeping the first.
func dedupFold(names []string) []string {
	out := []string{}
	for _, n := range names {
		if !containsFold(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (f *Forge) editHook(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, ok := f.hookByVar(rc)
	if !ok {
		return
	}
	req, ok := decode[hookRequest](rc)
	if !ok {
		return
	}
	next := h
	if req.Config != nil {
		// A config in an edit replaces the old one, as on GitHub.
		next.ContentType, next.Secret, next.InsecureSSL = "form", "", "0"
		if req.Config.URL == nil || *req.Config.URL == "" {
			validationFailed(w, "Hook", "", "custom", "Config must contain URL for webhooks")
			return
		}
		if msg := applyHookConfig(&next, req.Config); msg != "" {
			validationFailed(w, "Hook", "config", "custom", msg)
			return
		}
	}
	for _, list := range [][]string{req.Events, req.AddEvents, req.RemoveEvents} {
		if msg := hookEventsProblem(list); msg != "" {
			validationFailed(w, "Hook", "events", "invalid", msg)
			return
		}
	}
	if req.Events != nil {
		next.Events = dedupFold(req.Events)
	}
	next.Events = dedupFold(append(append([]string(nil), next.Events...), req.AddEvents...))
	var kept []string
	for _, e := range next.Events {
		if !containsFold(req.RemoveEvents, e) {
			kept = append(kept, e)
		}
	}
	if len(kept) == 0 {
		validationFailed(w, "Hook", "events", "invalid", "events must name at least one event")
		return
	}
	next.Events = kept
	if req.Active != nil {
		next.Active = *req.Active
	}
	next.UpdatedAt = f.now()
	saved, found := f.repoHooks.update(rc.repo.ID, h.ID, func(cur *Hook) { *cur = next })
	if !found {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.hookObject(rc.repo, saved))
}

func (f *Forge) deleteHook(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, ok := f.hookByVar(rc)
	if !ok {
		return
	}
	if !f.repoHooks.remove(rc.repo.ID, h.ID) {
		notFound(w)
		return
	}
	noContent(w)
}

func (f *Forge) getHookConfig(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	if h, ok := f.hookByVar(rc); ok {
		writeJSON(w, r, http.StatusOK, f.hookConfigObject(h))
	}
}

func (f *Forge) editHookConfig(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, ok := f.hookByVar(rc)
	if !ok {
		return
	}
	req, ok := decode[hookConfigRequest](rc)
	if !ok {
		return
	}
	next := h
	if msg := applyHookConfig(&next, &req); msg != "" {
		validationFailed(w, "Hook", "config", "custom", msg)
		return
	}
	next.UpdatedAt = f.now()
	saved, found := f.repoHooks.update(rc.repo.ID, h.ID, func(cur *Hook) { *cur = next })
	if !found {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.hookConfigObject(saved))
}

// pingTo sends the ping event to one hook, as GitHub does on creation and
// on POST .../pings.
func (f *Forge) pingTo(repo *Repo, h Hook, sender *Account) {
	payload := map[string]any{
		"zen": "Keep it logically awesome.", "hook_id": h.ID, "hook": f.hookObject(repo, h),
		"repository": f.repoObject(repo),
	}
	if sender != nil {
		payload["sender"] = f.userObject(sender)
	}
	body, err := marshalGitHub(payload, forWebhook)
	if err != nil {
		f.log.WithError(err).Error("marshal ping payload")
		return
	}
	f.hooks.queueDelivery(&Delivery{ID: newDeliveryID(), Event: "ping", Payload: body, Repo: repo.FullName(),
		RepoID: repo.ID, HookID: h.ID, target: h.target(repo)})
}

func (f *Forge) pingHook(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, ok := f.hookByVar(rc)
	if !ok {
		return
	}
	f.pingTo(rc.repo, h, rc.actor())
	noContent(w)
}

// listHookDeliveries lists a hook's deliveries, newest first, paginated
// by cursor as GitHub does.
func (f *Forge) listHookDeliveries(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	if h, ok := f.hookByVar(rc); ok {
		f.writeDeliveries(w, r, f.hooks.hookDeliveries(h.ID))
	}
}

// deliveryByVar is the delivery named by {delivery} of the hook {id}.
func (f *Forge) deliveryByVar(rc *reqCtx) (Hook, Delivery, bool) {
	h, ok := f.hookByVar(rc)
	if !ok {
		return Hook{}, Delivery{}, false
	}
	d, ok := deliveryByID(rc.w, rc.r, f.hooks.hookDeliveries(h.ID))
	if !ok {
		return Hook{}, Delivery{}, false
	}
	return h, d, true
}

func (f *Forge) getHookDelivery(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, d, ok := f.deliveryByVar(rc)
	if !ok {
		return
	}
	api, _ := f.repoURLs(rc.repo)
	self := api + "/hooks/" + strconv.FormatInt(h.ID, 10) + "/deliveries/" + strconv.FormatInt(d.Num, 10)
	writeJSON(w, r, http.StatusOK, deliveryObject(d, true, self))
}

// redeliverHook sends a delivery again (same GUID and payload, a new id,
// marked as a redelivery) to the hook as it is now; 202 as on GitHub.
func (f *Forge) redeliverHook(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	h, d, ok := f.deliveryByVar(rc)
	if !ok {
		return
	}
	again := d.again()
	again.target = h.target(rc.repo)
	f.hooks.queueDelivery(again)
	writeJSON(w, r, http.StatusAccepted, map[string]any{})
}
