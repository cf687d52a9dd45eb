package forge

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gorilla/mux"
)

// routesActivity serves GitHub's "List repository activities": the
// recorded changes of the repository's branches (activity.go).
func (f *Forge) routesActivity(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/activity", f.repoHandler(PermRead, f.listActivities)).Methods(http.MethodGet)
}

// activityPeriods are time_period's values.
var activityPeriods = map[string]time.Duration{
	"day": 24 * time.Hour, "week": 7 * 24 * time.Hour, "month": 30 * 24 * time.Hour,
	"quarter": 91 * 24 * time.Hour, "year": 365 * 24 * time.Hour,
}

// activityTypes are activity_type's values.
var activityTypes = map[string]bool{ActivityPush: true, ActivityForcePush: true, ActivityBranchCreation: true,
	ActivityBranchDeletion: true, ActivityPRMerge: true, "merge_queue_merge": true}

// activityQuery is a listing's filters and cursor.
type activityQuery struct {
	asc           bool
	perPage       int
	before, after int64 // cursors: activity ids (0: none)
	ref, actor    string
	since         time.Time
	kind          string
}

// parseActivityQuery reads the listing's parameters as GitHub documents
// them: direction (desc by default), per_page (30, at most 100), the
// before and after cursors of the Link header, ref (a branch name or
// refs/heads/<name>), actor, time_period and activity_type. A value
// outside an enumeration, or a cursor this forge did not give, is 422.
func (f *Forge) parseActivityQuery(q url.Values) (activityQuery, string) {
	out := activityQuery{perPage: 30}
	switch q.Get("direction") {
	case "", "desc":
	case "asc":
		out.asc = true
	default:
		return out, "direction"
	}
	if v, err := strconv.Atoi(q.Get("per_page")); err == nil && v > 0 {
		out.perPage = min(v, 100)
	}
	for _, c := range []struct {
		name string
		into *int64
	}{{"before", &out.before}, {"after", &out.after}} {
		if v := q.Get(c.name); v != "" {
			id, ok := activityCursorID(v)
			if !ok {
				return out, c.name
			}
			*c.into = id
		}
	}
	if ref := q.Get("ref"); ref != "" {
		out.ref = ref
		if !strings.HasPrefix(ref, "refs/") {
			out.ref = "refs/heads/" + ref
		}
	}
	out.actor = strings.ToLower(q.Get("actor"))
	if p := q.Get("time_period"); p != "" {
		d, ok := activityPeriods[p]
		if !ok {
			return out, "time_period"
		}
		out.since = f.now().Add(-d)
	}
	if t := q.Get("activity_type"); t != "" {
		if !activityTypes[t] {
			return out, "activity_type"
		}
		out.kind = t
	}
	return out, ""
}

func activityCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("activity:" + strconv.FormatInt(id, 10)))
}

func activityCursorID(c string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || !strings.HasPrefix(string(b), "activity:") {
		return 0, false
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(string(b), "activity:"), 10, 64)
	return id, err == nil && id > 0
}

// keeps reports whether a passes the query's filters.
func (q activityQuery) keeps(a *Activity) bool {
	return (q.ref == "" || a.Ref == q.ref) && (q.kind == "" || a.Type == q.kind) &&
		(q.actor == "" || (a.Actor != nil && strings.ToLower(a.Actor.Login) == q.actor)) &&
		(q.since.IsZero() || !a.At.Before(q.since))
}

// listActivities lists the repository's activities, newest first unless
// direction=asc, one page of per_page after (or before) a cursor, with
// the Link header's next and prev cursors as GitHub gives them.
func (f *Forge) listActivities(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	q, bad := f.parseActivityQuery(r.URL.Query())
	if bad != "" {
		validationFailed(w, "Activity", bad, "invalid", bad+" is not valid")
		return
	}
	rc.repo.mu.Lock()
	var all []Activity
	for _, a := range rc.repo.Activities {
		if q.keeps(a) {
			all = append(all, *a)
		}
	}
	rc.repo.mu.Unlock()
	if !q.asc {
		for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
			all[i], all[j] = all[j], all[i]
		}
	}
	// The cursor's position in the listing order.
	start, end := 0, len(all)
	for i, a := range all {
		if q.after != 0 && a.ID == q.after {
			start = i + 1
		}
		if q.before != 0 && a.ID == q.before {
			end = i
		}
	}
	if q.before != 0 && q.after == 0 {
		start = max(0, end-q.perPage)
	}
	if start > end {
		start = end
	}
	page := all[start:min(end, start+q.perPage)]
	var links []string
	link := func(cursorName string, id int64, rel string) {
		v := url.Values{}
		for k, vs := range r.URL.Query() {
			if k != "before" && k != "after" {
				v[k] = vs
			}
		}
		v.Set(cursorName, activityCursor(id))
		v.Set("per_page", strconv.Itoa(q.perPage))
		links = append(links, fmt.Sprintf(`<%s%s?%s>; rel="%s"`, strings.TrimSuffix(f.BaseURL(), apiPrefix), r.URL.Path, v.Encode(), rel))
	}
	if len(page) > 0 && start+len(page) < len(all) {
		link("after", page[len(page)-1].ID, "next")
	}
	if len(page) > 0 && start > 0 {
		link("before", page[0].ID, "prev")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	for _, a := range page {
		obj := map[string]any{"id": a.ID, "node_id": nodeID("Activity", a.ID), "before": a.Before, "after": a.After,
			"ref": a.Ref, "timestamp": ts(a.At), "activity_type": a.Type, "actor": f.userObject(a.Actor)}
		if a.Actor == nil {
			obj["actor"] = nil
		}
		out = append(out, obj)
	}
	writeJSON(w, r, http.StatusOK, out)
}
