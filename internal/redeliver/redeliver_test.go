package redeliver

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/sirupsen/logrus"
)

// fakeApp is GitHub's record of the App's deliveries, paged by cursor as
// GitHub pages it; a redelivery request records a new delivery answered
// with the status code the test sets.
type fakeApp struct {
	log    []*github.HookDelivery // oldest first
	lists  int
	asked  []int64
	answer int   // status code of the redeliveries made
	refuse error // returned to redelivery requests
}

func (f *fakeApp) add(guid string, code int, at time.Time) {
	id := int64(len(f.log) + 1)
	f.log = append(f.log, &github.HookDelivery{ID: github.Int64(id), GUID: github.String(guid), StatusCode: github.Int(code),
		DeliveredAt: &github.Timestamp{Time: at}, Redelivery: github.Bool(false)})
}

func (f *fakeApp) ListHookDeliveries(_ context.Context, opts *github.ListCursorOptions) ([]*github.HookDelivery, *github.Response, error) {
	f.lists++
	before := int64(len(f.log) + 1)
	if opts.Cursor != "" {
		before, _ = strconv.ParseInt(opts.Cursor, 10, 64)
	}
	var page []*github.HookDelivery
	for i := len(f.log) - 1; i >= 0 && len(page) < opts.PerPage; i-- {
		if f.log[i].GetID() < before {
			page = append(page, f.log[i])
		}
	}
	resp := &github.Response{Response: &http.Response{StatusCode: http.StatusOK}}
	if len(page) == opts.PerPage && page[len(page)-1].GetID() > 1 {
		resp.Cursor = strconv.FormatInt(page[len(page)-1].GetID(), 10)
	}
	return page, resp, nil
}

func (f *fakeApp) RedeliverHookDelivery(_ context.Context, id int64) (*github.HookDelivery, *github.Response, error) {
	f.asked = append(f.asked, id)
	if f.refuse != nil {
		return nil, nil, f.refuse
	}
	d := *f.log[id-1]
	d.ID, d.StatusCode, d.Redelivery = github.Int64(int64(len(f.log)+1)), github.Int(f.answer), github.Bool(true)
	f.log = append(f.log, &d)
	return nil, nil, &github.AcceptedError{}
}

// TestPassListsOnlyWhatIsNew: a first pass pages back to its horizon and
// redelivers the failures in it; a quiet pass is one list call; a
// redelivery that fails again is redelivered up to MaxAttempts; a refused
// request is retried next pass; each outcome is counted.
func TestPassListsOnlyWhatIsNew(t *testing.T) {
	ctx := context.Background()
	now := epoch
	app := &fakeApp{answer: http.StatusServiceUnavailable}
	app.add("ancient", 0, now.Add(-5*time.Hour)) // past the horizon: never redelivered
	for i := range 250 {
		code := http.StatusOK
		if i%100 == 7 {
			code = 0 // dropped
		}
		app.add("g"+strconv.Itoa(i), code, now.Add(-time.Hour+time.Duration(i)*time.Second))
	}
	counter := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "x"}, []string{"outcome"})
	r := New(app, logrus.New(), Options{Horizon: 3 * time.Hour, MaxAttempts: 2, Counter: counter,
		Now: func() time.Time { return now }})

	rep, err := r.Pass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Listed != 250 || rep.Pages != 3 || len(rep.Redelivered) != 3 || rep.Redelivered[0] != "g7" || rep.Redelivered[2] != "g207" {
		t.Fatalf("first pass: %+v", rep)
	}

	// Nothing new but the three redeliveries, which failed again: one
	// list call, three more redeliveries; then they are exhausted.
	app.lists = 0
	rep, err = r.Pass(ctx)
	if err != nil || app.lists != 1 || rep.Listed != 3 || len(rep.Redelivered) != 3 {
		t.Fatalf("second pass: %+v %v (%d lists)", rep, err, app.lists)
	}
	rep, err = r.Pass(ctx)
	if err != nil || len(rep.Redelivered) != 0 || rep.Skipped[SkipExhausted] != 3 {
		t.Fatalf("third pass: %+v %v", rep, err)
	}

	// Quiet: one call, nothing asked.
	app.lists, app.asked = 0, nil
	rep, err = r.Pass(ctx)
	if err != nil || app.lists != 1 || rep.Listed != 0 || len(app.asked) != 0 {
		t.Fatalf("quiet pass: %+v %v (%d lists, asked %v)", rep, err, app.lists, app.asked)
	}

	// A refused request is retried by the next pass; its redelivery
	// succeeds and the failure is forgotten.
	app.add("late", 0, now)
	app.refuse = errors.New("502 from GitHub")
	rep, err = r.Pass(ctx)
	if err != nil || rep.Failed != 1 || len(rep.Redelivered) != 0 {
		t.Fatalf("refused pass: %+v %v", rep, err)
	}
	app.refuse, app.answer = nil, http.StatusOK
	rep, err = r.Pass(ctx)
	if err != nil || len(rep.Redelivered) != 1 || rep.Redelivered[0] != "late" {
		t.Fatalf("retry pass: %+v %v", rep, err)
	}
	rep, err = r.Pass(ctx)
	if err != nil || rep.Repaired != 1 || len(rep.Redelivered) != 0 || rep.Remembered != 3 {
		t.Fatalf("repaired pass: %+v %v", rep, err)
	}
	for outcome, want := range map[string]float64{"redelivered": 7, "exhausted": 3, "failed": 1} {
		if got := testutil.ToFloat64(counter.WithLabelValues(outcome)); got != want {
			t.Errorf("%s counted %v, want %v", outcome, got, want)
		}
	}
}

// TestPassListingErrorChangesNothing: a failed listing leaves the state as
// it was, so the next pass reads the same deliveries.
func TestPassListingErrorChangesNothing(t *testing.T) {
	app := &fakeApp{answer: http.StatusOK}
	app.add("a", 0, epoch)
	r := New(&failingList{app}, logrus.New(), Options{Now: func() time.Time { return epoch }})
	if _, err := r.Pass(context.Background()); err == nil {
		t.Fatal("a failed listing passed")
	}
	r.api = app
	rep, err := r.Pass(context.Background())
	if err != nil || len(rep.Redelivered) != 1 {
		t.Fatalf("after the failure: %+v %v", rep, err)
	}
}

type failingList struct{ *fakeApp }

func (failingList) ListHookDeliveries(context.Context, *github.ListCursorOptions) ([]*github.HookDelivery, *github.Response, error) {
	return nil, nil, errors.New("boom")
}
