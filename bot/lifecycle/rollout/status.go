package rollout

import (
	"fmt"
	"strings"
	"time"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/rollout"
)

// Nameable says whether the upstream's threads may name a downstream
// repository: one the index may name (the upstream itself, a public one:
// downstreams.Downstream.NameableIn), or one the rollout's configuration
// names itself (a wave's repositories, not a glob). Others are counted,
// never named (the flow rule of issue #21).
type Nameable func(repo string) bool

// NameableIn is the Nameable of rollout r, given which repositories the
// index's rule names.
func NameableIn(r config.Rollout, indexNames func(repo string) bool) Nameable {
	named := map[string]bool{}
	for _, w := range r.Waves {
		for _, repo := range w.Repositories {
			if !strings.ContainsAny(repo, "*?[") {
				named[strings.ToLower(repo)] = true
			}
		}
	}
	return func(repo string) bool { return named[strings.ToLower(repo)] || indexNames != nil && indexNames(repo) }
}

var (
	stateWords = map[string]string{
		rollout.Idle: "idle", rollout.Rolling: "⏳ rolling", rollout.Paused: "⏸️ paused", rollout.Stopped: "🛑 stopped", rollout.Done: "✅ done",
	}
	waveWords = map[string]string{
		rollout.WaveWaiting: "waiting", rollout.WaveRolling: "⏳ rolling", rollout.WaveSoaking: "soaking", rollout.WaveDone: "✅ done",
		rollout.WaveSkipped: "⏭️ skipped", rollout.WaveFailed: "❌ failed",
	}
)

// who names a failing downstream, when the thread may.
func who(f rollout.Failing, name Nameable) string {
	if name(f.Repo) {
		return mdquote.Code(f.Repo) + " " + mdquote.Code(f.Package)
	}
	return "a repository not every reader here may see"
}

// Markdown is a plan in words: the rollout's state and why, a table of its
// waves, the failures and the downstreams awaited (repositories the thread
// may not name are counted instead).
func Markdown(p *rollout.Plan, name Nameable) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Rollout of %s", mdquote.Code(p.Package))
	if p.Revision > 0 {
		fmt.Fprintf(&b, " v%d", p.Revision)
	}
	fmt.Fprintf(&b, "**: %s — %s\n\n", stateWords[p.State], reason(p, name))
	b.WriteString("| wave | state | downstreams | merged | met the rule | in progress | not reachable |\n|---|---|---|---|---|---|---|\n")
	for _, w := range p.Waves {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", mdquote.CodeCell(w.Name), mdquote.Cell(waveState(w)), w.Total, w.Merged, w.Healthy, w.InProgress, w.Excluded)
	}
	hidden := 0
	for _, w := range p.Waves {
		for _, f := range w.Failures {
			if !name(f.Repo) {
				hidden++
			}
			b.WriteString("\n- " + failureText(w.Name, f, name))
		}
	}
	for _, w := range p.Waves {
		if w.State != rollout.WaveRolling && w.State != rollout.WaveFailed || len(w.Awaited) == 0 {
			continue
		}
		var names []string
		others := 0
		for _, key := range w.Awaited {
			repo, pkg, _ := strings.Cut(key, ":")
			if name(repo) {
				names = append(names, mdquote.Code(repo)+" "+mdquote.Code(pkg))
			} else {
				others++
			}
		}
		if others > 0 {
			names = append(names, fmt.Sprintf("%d in repositories not every reader here may see", others))
		}
		fmt.Fprintf(&b, "\n\nWave %s waits for: %s", mdquote.Code(w.Name), strings.Join(names, ", "))
		if n := w.Total - w.Excluded - w.Healthy; n > len(w.Awaited) {
			fmt.Fprintf(&b, " and %d more", n-len(w.Awaited))
		}
		b.WriteString(".")
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n\n%d failing downstream(s) are in repositories not every reader of this repository can read: they are not named here.", hidden)
	}
	if h := hint(p); h != "" {
		b.WriteString("\n\n" + h)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// waveState is a wave's state in words: until when it soaks, who
// skipped it.
func waveState(w rollout.WaveStatus) string {
	state := waveWords[w.State]
	switch {
	case w.State == rollout.WaveSoaking:
		state += " until " + w.SoakUntil.UTC().Format(time.RFC3339)
	case w.Skip != nil:
		state += " by " + mdquote.Quiet(w.Skip.By)
	}
	return state
}

// reason is why the rollout is where it is, under the naming rule: the
// planner's reason names a failing repository, so a failure is said again
// here.
func reason(p *rollout.Plan, name Nameable) string {
	for _, w := range p.Waves {
		if w.State == rollout.WaveFailed && len(w.Failures) > 0 {
			f := w.Failures[0]
			return fmt.Sprintf("wave %s failed: %s: %s reported %s", mdquote.Code(w.Name), who(f, name), mdquote.Code(f.Context), f.Report.State)
		}
	}
	return mdquote.Text(p.Reason)
}

// failureText is one failing downstream of wave: who (under the naming
// rule), what reported it and what it said; its link only when the
// repository may be named.
func failureText(wave string, f rollout.Failing, name Nameable) string {
	line := fmt.Sprintf("wave %s: %s: %s reported **%s**", mdquote.Code(wave), who(f, name), mdquote.Code(f.Context), f.Report.State)
	if f.Report.Description != "" {
		line += ": " + mdquote.Text(f.Report.Description)
	}
	if f.Report.URL != "" && name(f.Repo) {
		line += " (" + mdquote.Code(f.Report.URL) + ")"
	}
	return line
}

// hint says what an approver may do about a stopped or paused rollout
// ("" otherwise).
func hint(p *rollout.Plan) string {
	switch p.State {
	case rollout.Stopped:
		return "An approver's `/porch rollout resume " + p.Package + "` acknowledges the failures and goes on; `/porch rollout skip-wave " + p.Package + "` lets the rollout past the wave."
	case rollout.Paused:
		return "`/porch rollout resume " + p.Package + "` (an approver's) runs it again."
	}
	return ""
}
