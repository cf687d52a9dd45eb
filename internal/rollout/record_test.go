package rollout

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

func TestObserveKeepsWhenSuccessBegan(t *testing.T) {
	var r Record
	k := Key("Acme/Edge-1", "upf")
	if k != "acme/edge-1:upf" {
		t.Fatalf("key %q", k)
	}
	if !r.Observe(k, "flux", Report{Revision: 2, State: Pending, At: t0}) {
		t.Fatal("a first report changes nothing")
	}
	r.Observe(k, "flux", Report{Revision: 2, State: Success, At: t0.Add(time.Minute)})
	if r.Observe(k, "flux", Report{Revision: 2, State: Success, At: t0.Add(time.Minute)}) {
		t.Error("the same report again changed the record")
	}
	r.Observe(k, "flux", Report{Revision: 2, State: Success, At: t0.Add(time.Hour)})
	if got := r.Downstreams[k].Reports["flux"]; !got.Since.Equal(t0.Add(time.Minute)) || !got.At.Equal(t0.Add(time.Hour)) {
		t.Errorf("a repeated success moved when it began: %+v", got)
	}
	if r.Observe(k, "flux", Report{Revision: 2, State: Failure, At: t0}) {
		t.Error("a report older than the context's last was taken")
	}
	r.Observe(k, "flux", Report{Revision: 3, State: Success, At: t0.Add(2 * time.Hour)})
	if got := r.Downstreams[k].Reports["flux"]; !got.Since.Equal(t0.Add(2 * time.Hour)) {
		t.Errorf("a success on a new revision kept the old one's start: %+v", got)
	}
	if h := r.Downstreams[k].HealthOf(3, time.Time{}); h.State != Success || !h.Since.Equal(t0.Add(2*time.Hour)) {
		t.Errorf("health %+v", h)
	}
}

func TestObserveBoundsWhatItKeeps(t *testing.T) {
	var r Record
	for i := 0; i < MaxContexts+5; i++ {
		r.Observe("a:p", fmt.Sprintf("ctx-%02d", i), Report{Revision: 1, State: Success, At: t0.Add(time.Duration(i) * time.Minute)})
	}
	reps := r.Downstreams["a:p"].Reports
	if len(reps) != MaxContexts {
		t.Fatalf("%d contexts kept", len(reps))
	}
	if _, ok := reps["ctx-00"]; ok {
		t.Error("the oldest context was kept over a new one")
	}
	r.Observe("a:p", "x", Report{Revision: 1, State: Failure, At: t0, URL: "javascript:alert(1)", Description: strings.Repeat("é", 500)})
	got := r.Downstreams["a:p"].Reports["x"]
	if got.URL != "" || len([]rune(got.Description)) != maxDescriptionRunes {
		t.Errorf("kept URL %q and %d runes", got.URL, len([]rune(got.Description)))
	}
	if r.Observe("a:p", strings.Repeat("c", 300), Report{Revision: 1, State: Success, At: t0}) || r.Observe("a:p", "y", Report{State: Success, At: t0}) {
		t.Error("a report with an overlong context or no revision was taken")
	}
}

func TestRecordSignature(t *testing.T) {
	key := []byte("k")
	r := Record{Package: "base/upf"}
	r.Pause("alice", t0)
	r.Observe("acme/edge-1:upf", "flux", Report{Revision: 1, State: Success, At: t0})
	file, err := Encode(key, "acme/catalog", r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(key, "ACME/catalog", "base/upf", file)
	if err != nil || got.Paused == nil || got.Paused.By != "alice" || got.Downstreams["acme/edge-1:upf"].Reports["flux"].State != Success {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	// Indentation is not content.
	if _, err := Decode(key, "acme/catalog", "base/upf", bytes.ReplaceAll(file, []byte("\n "), []byte("\n   "))); err != nil {
		t.Errorf("re-indented: %v", err)
	}
	for name, c := range map[string]struct {
		key         string
		repo, pkg   string
		file        []byte
		wantSigFail bool
	}{
		"resumed by hand":              {"k", "acme/catalog", "base/upf", bytes.Replace(file, []byte(`"paused"`), []byte(`"resumed"`), 1), true},
		"another key":                  {"other", "acme/catalog", "base/upf", file, true},
		"copied to another repository": {"k", "acme/other", "base/upf", file, true},
		"another package":              {"k", "acme/catalog", "base/amf", file, true},
		"not JSON":                     {"k", "acme/catalog", "base/upf", []byte("paused: false"), true},
	} {
		if _, err := Decode([]byte(c.key), c.repo, c.pkg, c.file); !errors.Is(err, ErrSignature) {
			t.Errorf("%s: %v, want ErrSignature", name, err)
		}
	}
}

func TestResumeAcknowledgesTheFailuresSoFar(t *testing.T) {
	var r Record
	k := "acme/edge-1:upf"
	r.Observe(k, "flux", Report{Revision: 2, State: Failure, At: t0})
	if h := r.Downstreams[k].HealthOf(2, time.Time{}); h.State != Failure {
		t.Fatalf("health %+v", h)
	}
	// The deployer's clock may be ahead of porchbot's: the resume
	// acknowledges what the record holds, whatever its time.
	r.Resume("alice", t0.Add(-time.Hour))
	if h := r.Downstreams[k].HealthOf(2, t0.Add(-time.Hour)); h.State != Acknowledged || !h.Met() {
		t.Fatalf("after the resume: %+v", h)
	}
	r.Observe(k, "flux", Report{Revision: 2, State: Failure, At: t0.Add(time.Minute)})
	if h := r.Downstreams[k].HealthOf(2, time.Time{}); h.State != Acknowledged {
		t.Errorf("the same failure posted again stopped the rollout again: %+v", h)
	}
	r.Observe(k, "flux", Report{Revision: 2, State: Success, At: t0.Add(2 * time.Minute)})
	r.Observe(k, "flux", Report{Revision: 2, State: Failure, At: t0.Add(3 * time.Minute)})
	if h := r.Downstreams[k].HealthOf(2, time.Time{}); h.State != Failure {
		t.Errorf("a new failure after a success was taken as acknowledged: %+v", h)
	}
}
