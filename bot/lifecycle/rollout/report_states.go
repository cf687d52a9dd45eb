package rollout

import (
	"time"

	"github.com/porchbot/porchbot/internal/rollout"
)

// The states of GitHub's reports in the rollouts' terms (Success, Failure,
// Pending): a commit status's, a check run's, a deployment status's.

var statusStates = map[string]string{"success": rollout.Success, "failure": rollout.Failure, "error": rollout.Failure, "pending": rollout.Pending}

// StatusState is a commit status's state (ok false: not one of GitHub's).
func StatusState(state string) (string, bool) {
	s, ok := statusStates[state]
	return s, ok
}

var checkConclusions = map[string]string{"success": rollout.Success, "neutral": rollout.Success, "skipped": rollout.Success,
	"failure": rollout.Failure, "timed_out": rollout.Failure, "cancelled": rollout.Failure, "action_required": rollout.Failure,
	"startup_failure": rollout.Failure, "stale": rollout.Failure}

// CheckRunState is a check run's state and when it was reached: pending
// (from its start) until it completes, then its conclusion's (ok false: a
// conclusion GitHub does not give).
func CheckRunState(status, conclusion string, started, completed time.Time) (string, time.Time, bool) {
	if status != "completed" {
		return rollout.Pending, started, true
	}
	s, ok := checkConclusions[conclusion]
	return s, completed, ok
}

var deploymentStates = map[string]string{"success": rollout.Success, "failure": rollout.Failure, "error": rollout.Failure,
	"pending": rollout.Pending, "queued": rollout.Pending, "in_progress": rollout.Pending}

// DeploymentState is a deployment status's state (ok false: inactive, a
// later deployment replaced it, or not one of GitHub's).
func DeploymentState(state string) (string, bool) {
	s, ok := deploymentStates[state]
	return s, ok
}
