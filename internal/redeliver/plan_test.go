package redeliver

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
)

var epoch = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

// del is a delivery: id, GUID, status code (0: no answer), redelivery.
func del(id int64, guid string, code int, again bool) *github.HookDelivery {
	return &github.HookDelivery{ID: github.Int64(id), GUID: github.String(guid), StatusCode: github.Int(code),
		Redelivery: github.Bool(again), DeliveredAt: &github.Timestamp{Time: epoch.Add(time.Duration(id) * time.Second)},
		Event: github.String("pull_request")}
}

// newestFirst lists deliveries as GitHub does.
func newestFirst(ds ...*github.HookDelivery) []*github.HookDelivery {
	out := make([]*github.HookDelivery, len(ds))
	for i, d := range ds {
		out[len(ds)-1-i] = d
	}
	return out
}

func ids(ds []*github.HookDelivery) []int64 {
	out := []int64{}
	for _, d := range ds {
		out = append(out, d.GetID())
	}
	return out
}

func TestPlanPass(t *testing.T) {
	lim := Limits{MaxAttempts: 2, MaxPerPass: 2}
	for _, c := range []struct {
		name      string
		listed    []*github.HookDelivery // oldest first
		known     map[string]Failure
		want      []int64
		delivered []string
		skipped   map[string]int
		remember  map[string]int // GUID → attempts after the pass
		due       []string
	}{
		{name: "nothing new", want: []int64{}, skipped: map[string]int{}, remember: map[string]int{}},
		{name: "all delivered", listed: []*github.HookDelivery{del(1, "a", 200, false), del(2, "b", 204, false)},
			want: []int64{}, skipped: map[string]int{}, remember: map[string]int{}},
		{name: "dropped, refused and timed out are redelivered oldest first, within the budget",
			listed: []*github.HookDelivery{del(1, "a", 0, false), del(2, "b", 503, false), del(3, "c", 0, false), del(4, "d", 302, false)},
			want:   []int64{1, 2}, skipped: map[string]int{SkipBudget: 2},
			remember: map[string]int{"a": 0, "b": 0, "c": 0, "d": 0}, due: []string{"c", "d"}},
		{name: "a failure another delivery of its GUID repaired is left",
			listed: []*github.HookDelivery{del(1, "a", 0, false), del(2, "a", 200, true), del(3, "b", 500, false)},
			want:   []int64{3}, skipped: map[string]int{}, remember: map[string]int{"b": 0}},
		{name: "a failed redelivery is redelivered again, the newest failure of the GUID",
			known:  map[string]Failure{"a": {Latest: del(1, "a", 0, false)}},
			listed: []*github.HookDelivery{del(5, "a", 503, true)},
			want:   []int64{5}, skipped: map[string]int{}, remember: map[string]int{"a": 1}},
		{name: "a GUID redelivered MaxAttempts times is left",
			known:  map[string]Failure{"a": {Latest: del(5, "a", 503, true), Attempts: 1}},
			listed: []*github.HookDelivery{del(8, "a", 0, true)},
			want:   []int64{}, skipped: map[string]int{SkipExhausted: 1}, remember: map[string]int{"a": 2}},
		{name: "a known failure repaired by a later redelivery is forgotten",
			known:  map[string]Failure{"a": {Latest: del(1, "a", 0, false)}},
			listed: []*github.HookDelivery{del(4, "a", 200, true)},
			want:   []int64{}, delivered: []string{"a"}, skipped: map[string]int{}, remember: map[string]int{}},
		{name: "a known failure awaiting its redelivery is not asked for twice",
			known:  map[string]Failure{"a": {Latest: del(1, "a", 0, false)}},
			listed: []*github.HookDelivery{del(4, "b", 200, false)},
			want:   []int64{}, skipped: map[string]int{}, remember: map[string]int{"a": 0}},
		{name: "a failure the last budget left is due now, before newer ones",
			known:  map[string]Failure{"a": {Latest: del(1, "a", 0, false), Due: true}},
			listed: []*github.HookDelivery{del(6, "b", 0, false), del(7, "c", 0, false)},
			want:   []int64{1, 6}, skipped: map[string]int{SkipBudget: 1},
			remember: map[string]int{"a": 0, "b": 0, "c": 0}, due: []string{"c"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := PlanPass(newestFirst(c.listed...), c.known, lim)
			if got := ids(p.Redeliver); !reflect.DeepEqual(got, c.want) {
				t.Errorf("redeliver %v, want %v", got, c.want)
			}
			if !reflect.DeepEqual(p.Delivered, c.delivered) {
				t.Errorf("delivered %v, want %v", p.Delivered, c.delivered)
			}
			if !reflect.DeepEqual(p.Skipped, c.skipped) {
				t.Errorf("skipped %v, want %v", p.Skipped, c.skipped)
			}
			got, due := map[string]int{}, []string(nil)
			for g, f := range p.Failures {
				got[g] = f.Attempts
				if f.Due {
					due = append(due, g)
				}
			}
			if !reflect.DeepEqual(got, c.remember) {
				t.Errorf("remembered %v, want %v", got, c.remember)
			}
			slices.Sort(due)
			if !reflect.DeepEqual(due, c.due) {
				t.Errorf("due %v, want %v", due, c.due)
			}
		})
	}
}
