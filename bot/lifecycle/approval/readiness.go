package approval

import (
	"context"
	"fmt"
	"path"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// GateStatus is one readiness gate of a package (Kptfile
// info.readinessGates) and the condition it names (status.conditions).
type GateStatus struct {
	// Package is the package whose Kptfile names the gate ("" when the
	// proposal changes one package only).
	Package       string
	ConditionType string
	// Status is the condition's status ("True", "False", "Unknown"), ""
	// when the Kptfile has no such condition.
	Status  string
	Reason  string
	Message string
}

// Met reports that the gate's condition is "True".
func (g GateStatus) Met() bool { return g.Status == kptfile.ConditionTrue }

// Describe is the gate's state for people: "False (Reason: message)",
// "no condition in status.conditions".
func (g GateStatus) Describe() string {
	if g.Status == "" {
		return "no such condition in status.conditions"
	}
	s := g.Status
	switch {
	case g.Reason != "" && g.Message != "":
		s += " (" + g.Reason + ": " + g.Message + ")"
	case g.Reason != "":
		s += " (" + g.Reason + ")"
	case g.Message != "":
		s += " (" + g.Message + ")"
	}
	return s
}

// ReadinessGates lists a Kptfile's readiness gates with the status of
// their conditions, in the Kptfile's order (a gate listed twice once).
func ReadinessGates(k *kptfile.Kptfile) []GateStatus {
	if k == nil || k.Info == nil {
		return nil
	}
	var out []GateStatus
	seen := map[string]bool{}
	for _, g := range k.Info.ReadinessGates {
		if seen[g.ConditionType] {
			continue
		}
		seen[g.ConditionType] = true
		gs := GateStatus{ConditionType: g.ConditionType}
		if c, ok := k.Status.Condition(g.ConditionType); ok {
			gs.Status, gs.Reason, gs.Message = c.Status, c.Reason, c.Message
		}
		out = append(out, gs)
	}
	return out
}

// KptfileGate is the pseudo-gate reported when the Kptfile itself cannot
// be read: a package whose readiness is unknown is not ready.
const KptfileGate = "Kptfile"

// PackageReadiness reads the readiness gates of the package in dir at
// commit. A package without a Kptfile there has no gates; a Kptfile that
// does not parse is one unmet gate named KptfileGate carrying the error,
// so a broken Kptfile never passes as ready.
func PackageReadiness(ctx context.Context, s *core.Session, commit plumbing.Hash, dir string) ([]GateStatus, error) {
	name := path.Join(dir, kptfile.FileName)
	data, ok, err := s.ReadFile(ctx, commit, name)
	if err != nil {
		return nil, fmt.Errorf("readiness gates: %w", err)
	}
	if !ok {
		return nil, nil
	}
	f, err := kptfile.ParseFile(name, data)
	if err != nil {
		return []GateStatus{{ConditionType: KptfileGate, Status: kptfile.ConditionUnknown,
			Reason: "Invalid", Message: err.Error()}}, nil
	}
	return ReadinessGates(f.Kptfile()), nil
}
