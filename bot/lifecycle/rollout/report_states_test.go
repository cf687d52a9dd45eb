package rollout

import (
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/rollout"
)

func TestReportStates(t *testing.T) {
	started, completed := time.Unix(100, 0), time.Unix(200, 0)
	for _, c := range []struct {
		status, conclusion string
		want               string
		at                 time.Time
		ok                 bool
	}{
		{"queued", "", rollout.Pending, started, true},
		{"in_progress", "", rollout.Pending, started, true},
		{"completed", "success", rollout.Success, completed, true},
		{"completed", "neutral", rollout.Success, completed, true},
		{"completed", "timed_out", rollout.Failure, completed, true},
		{"completed", "cancelled", rollout.Failure, completed, true},
		{"completed", "made-up", "", completed, false},
	} {
		got, at, ok := CheckRunState(c.status, c.conclusion, started, completed)
		if got != c.want || ok != c.ok || ok && !at.Equal(c.at) {
			t.Errorf("check run %s/%s: %q at %v (%v), want %q at %v", c.status, c.conclusion, got, at, ok, c.want, c.at)
		}
	}
	for state, want := range map[string]string{"success": rollout.Success, "error": rollout.Failure, "failure": rollout.Failure, "pending": rollout.Pending, "bogus": ""} {
		if got, ok := StatusState(state); got != want || ok != (want != "") {
			t.Errorf("status %s: %q %v", state, got, ok)
		}
	}
	for state, want := range map[string]string{"success": rollout.Success, "error": rollout.Failure, "queued": rollout.Pending, "in_progress": rollout.Pending, "inactive": ""} {
		if got, ok := DeploymentState(state); got != want || ok != (want != "") {
			t.Errorf("deployment status %s: %q %v", state, got, ok)
		}
	}
}
