package rollout

import (
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/rollout"
)

// maxCompactFailures bounds the failures Compact lists; /porch rollout
// status lists them all.
const maxCompactFailures = 5

// Compact is a plan in a few lines, for the upstream repository's
// dashboard: a list item with the rollout's state and why, one line of
// its waves (each one's state and counts), its first failures and what
// an approver may do, with Markdown's pieces under the same naming rule
// (repositories the thread may not name are not named).
func Compact(p *rollout.Plan, name Nameable) string {
	var b strings.Builder
	b.WriteString("- " + mdquote.Code(p.Package))
	if p.Revision > 0 {
		fmt.Fprintf(&b, " v%d", p.Revision)
	}
	fmt.Fprintf(&b, ": %s — %s\n", stateWords[p.State], reason(p, name))
	if len(p.Waves) > 0 {
		parts := make([]string, len(p.Waves))
		for i, w := range p.Waves {
			parts[i] = waveCounts(w)
		}
		b.WriteString("  - waves: " + strings.Join(parts, " · ") + "\n")
	}
	listed, failures := 0, 0
	for _, w := range p.Waves {
		for _, f := range w.Failures {
			failures++
			if listed < maxCompactFailures {
				b.WriteString("  - " + failureText(w.Name, f, name) + "\n")
				listed++
			}
		}
	}
	if failures > listed {
		fmt.Fprintf(&b, "  - … and %d more failures: %s lists them\n", failures-listed, mdquote.Code("/porch rollout status "+p.Package))
	}
	if h := hint(p); h != "" {
		b.WriteString("  - " + h + "\n")
	}
	return b.String()
}

// waveCounts is one wave in a few words: its name, its state, how many of
// its downstreams met the rule, and the merged, in progress and not
// reachable ones when there are any.
func waveCounts(w rollout.WaveStatus) string {
	s := fmt.Sprintf("%s %s %d/%d", mdquote.Code(w.Name), waveState(w), w.Healthy, w.Total-w.Excluded)
	var more []string
	if w.Merged != w.Healthy {
		more = append(more, fmt.Sprintf("%d merged", w.Merged))
	}
	if w.InProgress > 0 {
		more = append(more, fmt.Sprintf("%d in progress", w.InProgress))
	}
	if w.Excluded > 0 {
		more = append(more, fmt.Sprintf("%d not reachable", w.Excluded))
	}
	if len(more) > 0 {
		s += " (" + strings.Join(more, ", ") + ")"
	}
	return s
}
