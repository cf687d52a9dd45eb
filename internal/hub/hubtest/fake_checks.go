package hubtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"

	"github.com/porchbot/porchbot/internal/hub"
)

// The check run calls of Fake.

func cloneRun(r hub.CheckRun) hub.CheckRun {
	r.Output.Annotations = slices.Clone(r.Output.Annotations)
	return r
}

// run is the index of check run id in CheckRuns (-1: none).
func (f *Fake) run(id int64) int {
	return slices.IndexFunc(f.CheckRuns, func(r hub.CheckRun) bool { return r.ID == id })
}

// applyRun sets w's non-empty fields on r: a conclusion completes the
// run; an output replaces title, summary and text, and adds its
// annotations to those of earlier writes, as GitHub does.
func applyRun(r *hub.CheckRun, w hub.CheckRunWrite) {
	for _, s := range []struct {
		to *string
		v  string
	}{{&r.Name, w.Name}, {&r.Status, w.Status}, {&r.Conclusion, w.Conclusion},
		{&r.ExternalID, w.ExternalID}, {&r.DetailsURL, w.DetailsURL}} {
		if s.v != "" {
			*s.to = s.v
		}
	}
	if w.Conclusion != "" {
		r.Status = "completed"
	}
	if !w.StartedAt.IsZero() {
		r.StartedAt = w.StartedAt
	}
	if !w.CompletedAt.IsZero() {
		r.CompletedAt = w.CompletedAt
	}
	if w.Output != nil {
		r.Output = hub.CheckOutput{Title: w.Output.Title, Summary: w.Output.Summary, Text: w.Output.Text,
			Annotations: slices.Concat(r.Output.Annotations, w.Output.Annotations)}
	}
}

// CreateCheckRun appends a check run with the next ID ("queued" unless
// w says otherwise); 422 without a name or head.
func (f *Fake) CreateCheckRun(_ context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error) {
	defer f.begin("CreateCheckRun")()
	if w.Name == "" || w.HeadSHA == "" {
		return hub.CheckRun{}, answer(http.StatusUnprocessableEntity, "missing_field")
	}
	ids := make([]int64, 0, len(f.CheckRuns))
	for _, r := range f.CheckRuns {
		ids = append(ids, r.ID)
	}
	slug := f.AppSlug
	if slug == "" {
		slug = "porchbot"
	}
	id := nextID(ids...)
	r := hub.CheckRun{ID: id, HeadSHA: w.HeadSHA, Status: "queued", AppSlug: slug, StartedAt: f.now(),
		HTMLURL: fmt.Sprintf("https://github.com/%s/%s/runs/%d", owner, repo, id)}
	applyRun(&r, w)
	f.CheckRuns = append(f.CheckRuns, r)
	return cloneRun(r), nil
}

// UpdateCheckRun applies w to check run id (its HeadSHA ignored).
func (f *Fake) UpdateCheckRun(_ context.Context, _, _ string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error) {
	defer f.begin("UpdateCheckRun")()
	i := f.run(id)
	if i < 0 {
		return hub.CheckRun{}, answer(http.StatusNotFound)
	}
	applyRun(&f.CheckRuns[i], w)
	return cloneRun(f.CheckRuns[i]), nil
}

// ListCheckRuns lists the CheckRuns of ref (a sha, or a ref, branch or
// tag in Refs) named q.Name (any when ""): with q.Filter "all" every
// one, else the latest (highest ID) of each name, as GitHub's "latest".
// q.AppID is ignored: runs carry only their App's slug.
func (f *Fake) ListCheckRuns(_ context.Context, _, _, ref string, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error) {
	defer f.begin("ListCheckRuns")()
	return f.runsOf(f.resolve(ref), q.Name, q.Filter), hub.Next{}, nil
}

// runsOf lists the CheckRuns of commit sha named name (any when ""):
// with filter "all" every one, else the latest of each name.
func (f *Fake) runsOf(sha, name, filter string) hub.CheckRuns {
	latest := map[string]int64{}
	for _, r := range f.CheckRuns {
		if r.HeadSHA == sha {
			latest[r.Name] = max(latest[r.Name], r.ID)
		}
	}
	var out hub.CheckRuns
	for _, r := range f.CheckRuns {
		if r.HeadSHA != sha || name != "" && r.Name != name || filter != "all" && latest[r.Name] != r.ID {
			continue
		}
		out.Runs = append(out.Runs, cloneRun(r))
	}
	out.Total = len(out.Runs)
	return out
}

// ListSuiteCheckRuns lists the CheckRuns of the commit of Suites[id]
// (q.Filter applies as in ListCheckRuns, q.Name and q.AppID do not); 404
// when the suite is absent.
func (f *Fake) ListSuiteCheckRuns(_ context.Context, _, _ string, id int64, q hub.CheckQuery) (hub.CheckRuns, hub.Next, error) {
	defer f.begin("ListSuiteCheckRuns")()
	sha, ok := f.Suites[id]
	if !ok {
		return hub.CheckRuns{}, hub.Next{}, answer(http.StatusNotFound)
	}
	return f.runsOf(sha, "", q.Filter), hub.Next{}, nil
}
