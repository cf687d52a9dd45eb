package dashboard

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// The "Package dashboard" issue (SPEC §8, docs/dashboard.md), in the manner
// of Renovate's Dependency Dashboard: one living issue per repository that
// lists packages, drafts, proposals, landings waiting for /porch publish,
// upstream updates and configuration errors, with checkboxes that act.
// This file is the pure half: what the body says (Body) and which
// ticked boxes ask for what (Ticks). Gathering the facts is
// dashboard_gather.go, finding the issue dashboard_issue.go.

// Names of the dashboard issue.
const (
	Title = "Package dashboard"
	// Label marks porchbot's dashboard issue, so finding it is one
	// small list call.
	Label = "porch/dashboard"
	// dashboardMarker opens the body of every dashboard porchbot writes.
	dashboardMarker = "<!-- porchbot:dashboard -->"
)

// Bounds of the dashboard.
const (
	// dashboardMaxRows bounds the rows of each section (GitHub caps an
	// issue body at 65,536 characters).
	dashboardMaxRows = 50
	// MaxBody is the longest body read for ticks.
	MaxBody = 65536
	// dashboardMaxTicks bounds the actions one edit can ask for.
	dashboardMaxTicks = 20
)

// Facts is everything a dashboard shows, gathered by
// Gather.
type Facts struct {
	// Repo is "owner/name"; Web the GitHub web base URL (links).
	Repo, Web        string
	DeploymentBranch string
	Packages         []proposals.PackageStatus
	Drafts           []Draft
	Proposals        []Proposal
	Landings         []Landing
	Updates          []Update
	// Rollouts are the rollouts of the repository's packages, when it is
	// their upstream (dashboard_rollouts.go).
	Rollouts []Rollout
	// UnverifiedTags are tags that are not porchbot's revisions.
	UnverifiedTags []core.UnverifiedTag
	// ConfigError is the deployment branch's configuration problem ("" for
	// none); ConfigInForce names the version that applies instead.
	ConfigError, ConfigInForce string
	// Truncated says a section was cut to its bound.
	Truncated bool
	// HasConfig: the deployment branch holds .github/porchbot.yaml.
	HasConfig bool
}

// Empty reports a repository with nothing of porchbot's yet: no package,
// draft, proposal, landing, update or configuration file. No dashboard is
// opened for it (the resync opens one once there is something).
func (f Facts) Empty() bool {
	return len(f.Packages)+len(f.Drafts)+len(f.Proposals)+len(f.Landings)+len(f.Updates) == 0 &&
		!f.HasConfig && f.ConfigError == ""
}

// Draft is a draft branch and its render.
type Draft struct {
	Package, Workspace string
	Pull               int
	Render             rendercheck.RenderState
}

// Proposal is an open proposal and its approval verdict.
type Proposal struct {
	Number             int
	Title              string
	Package, Workspace string
	// Verdict is the approval policy's (nil when it could not be judged:
	// Problem says why).
	Verdict *approval.Result
	Problem string
	// StillNeeded says who may still approve ("" when nobody is needed).
	StillNeeded string
}

// Landing is a package landed on the deployment branch and not
// published: it waits for /porch publish.
type Landing struct {
	Package string
	// Commit is the newest unpublished landing; Count how many there are.
	Commit string
	Count  int
}

// Update states.
const (
	UpdateOpen    = "open"
	UpdateWaiting = "waiting"
	UpdateFailed  = "failed"
)

// Update is an upstream update of a package: an open pull
// request, one waiting for a slot (updates.prConcurrentLimit), or one
// whose render failed.
type Update struct {
	Package string
	Pull    int
	State   string
}

// Dashboard action kinds: what a ticked box asks for.
const (
	// ActionRender renders draft Package/Workspace again (/porch render).
	ActionRender = "render"
	// ActionUpdate makes the update pull request of Package again
	// (/porch upgrade).
	ActionUpdate = "update"
)

// Action is what one ticked box asks for.
type Action struct {
	Kind               string
	Package, Workspace string
}

// Verb is the /porch command whose permission the action needs.
func (a Action) Verb() string {
	if a.Kind == ActionUpdate {
		return "upgrade"
	}
	return "render"
}

// target is the box's key: "<package>/<workspace>" or "<package>".
func (a Action) target() string {
	if a.Kind == ActionRender {
		return a.Package + "/" + a.Workspace
	}
	return a.Package
}

// String is the action as the dashboard words it.
func (a Action) String() string {
	if a.Kind == ActionUpdate {
		return "update of " + mdquote.Code(a.Package) + " again"
	}
	return "render of " + mdquote.Code("drafts/"+a.target())
}

// box is the checkbox line of an action, unticked.
func (a Action) box(label string) string {
	return fmt.Sprintf("- [ ] <!-- porch:%s %s --> %s", a.Kind, a.target(), label)
}

// dashboardBox matches a checkbox line porchbot wrote.
var dashboardBox = regexp.MustCompile(`(?m)^- \[([ xX])\] <!-- porch:(render|update) ([^\s<>]+) -->`)

// dashboardBoxes reads the checkbox lines of a body: each action, ticked
// or not, in order (the first line of a target wins).
func dashboardBoxes(body string) (order []Action, ticked map[Action]bool) {
	if len(body) > MaxBody {
		body = body[:MaxBody]
	}
	ticked = map[Action]bool{}
	for _, m := range dashboardBox.FindAllStringSubmatch(body, -1) {
		a := Action{Kind: m[2]}
		if a.Kind == ActionRender {
			pkg, ws, err := packages.CheckDraftBranchName("drafts/" + m[3])
			if err != nil {
				continue // not a draft's name: a line someone wrote
			}
			a.Package, a.Workspace = pkg, ws
		} else {
			if packages.ValidateName(m[3]) != nil {
				continue
			}
			a.Package = m[3]
		}
		if _, seen := ticked[a]; seen {
			continue
		}
		ticked[a] = m[1] != " "
		order = append(order, a)
	}
	return order, ticked
}

// Ticks are the actions an edit of the dashboard asks for: the
// boxes ticked in after that were not ticked in before (a box unticked or
// left ticked asks for nothing), in the body's order, at most
// dashboardMaxTicks. Only porchbot's own box lines count: a line someone
// adds is read like any other, and the action is checked against the
// ticker's permission before it runs.
func Ticks(before, after string) []Action {
	_, was := dashboardBoxes(before)
	order, is := dashboardBoxes(after)
	var out []Action
	for _, a := range order {
		if is[a] && !was[a] {
			out = append(out, a)
			if len(out) == dashboardMaxTicks {
				break
			}
		}
	}
	return out
}

// IsBody reports a body porchbot wrote as a dashboard.
func IsBody(body string) bool { return strings.HasPrefix(body, dashboardMarker) }

// Body is the dashboard's markdown: every box unticked (a refresh
// clears the ticks it has acted on).
func Body(f Facts) string {
	var b strings.Builder
	b.WriteString(dashboardMarker + "\n")
	b.WriteString("porchbot keeps this issue up to date with the packages of this repository and the work on them. " +
		"Tick a box to act: it counts as the matching `/porch` command of yours, and needs the same permission. " +
		"Close the issue to stop it; porchbot opens it again only when `.github/porchbot.yaml` changes with `dashboard.enabled: true`.\n")
	if f.ConfigError != "" {
		b.WriteString("\n## Configuration errors\n\n")
		fmt.Fprintf(&b, "`.github/porchbot.yaml` on %s is invalid; %s applies.\n\n", mdquote.Code(f.DeploymentBranch), f.ConfigInForce)
		b.WriteString(mdquote.Fence(mdquote.TruncateRunes(f.ConfigError, 4000, "…")))
	}
	writeSection(&b, "Packages", len(f.Packages), "No packages yet: `/porch init <package>` starts one.", func(i int) string {
		p := f.Packages[i]
		switch {
		case p.Problem != "":
			return fmt.Sprintf("- %s: %s", mdquote.Code(p.Name), mdquote.Text(p.Problem))
		case p.Latest == 0:
			return fmt.Sprintf("- %s: no published revision", mdquote.Code(p.Name))
		}
		line := fmt.Sprintf("- %s: [v%d](%s)", mdquote.Code(p.Name), p.Latest, f.link("tree/"+mdquote.Path(p.Name)+"/v"+fmt.Sprint(p.Latest)))
		if p.Deleted() {
			line += " (deleted)"
		}
		return line
	})
	if len(f.Rollouts) > 0 {
		writeSection(&b, "Rollouts", len(f.Rollouts), "", func(i int) string { return rolloutRow(f.Rollouts[i]) })
	}
	writeSection(&b, "Drafts", len(f.Drafts), "No drafts.", func(i int) string {
		d := f.Drafts[i]
		a := Action{Kind: ActionRender, Package: d.Package, Workspace: d.Workspace}
		label := fmt.Sprintf("%s: render %s", mdquote.Code("drafts/"+d.Package+"/"+d.Workspace), renderWords(d.Render))
		if d.Pull != 0 {
			label += fmt.Sprintf(" — #%d", d.Pull)
		}
		if d.Render == rendercheck.RenderFailed {
			return a.box(label + " — tick to retry")
		}
		return a.box(label + " — tick to render again")
	})
	writeSection(&b, "Proposals", len(f.Proposals), "No open proposals.", func(i int) string {
		return proposalLine(f.Proposals[i])
	})
	writeSection(&b, "Waiting for `/porch publish`", len(f.Landings), "Nothing waits.", func(i int) string {
		l := f.Landings[i]
		return fmt.Sprintf("- %s: landed at %s, not published — %s by an approver publishes it",
			mdquote.Code(l.Package), mdquote.Code(words.ShortSHA(l.Commit)), mdquote.Code("/porch publish "+l.Package))
	})
	if len(f.UnverifiedTags) > 0 {
		writeSection(&b, "Tags that are not porchbot's revisions", len(f.UnverifiedTags), "", func(i int) string {
			u := f.UnverifiedTags[i]
			return fmt.Sprintf("- %s on %s: %s — nothing is derived from it; %s by an approver adopts it",
				mdquote.Code(u.Name()), mdquote.Code(words.ShortSHA(u.Commit.String())), mdquote.Text(fmt.Sprint(u.Why)), mdquote.Code("/porch publish "+u.Package))
		})
	}
	writeSection(&b, "Upstream updates", len(f.Updates), "No pending updates.", func(i int) string {
		u := f.Updates[i]
		a := Action{Kind: ActionUpdate, Package: u.Package}
		switch u.State {
		case UpdateFailed:
			return a.box(fmt.Sprintf("%s: #%d failed its render — tick to retry the update", mdquote.Code(u.Package), u.Pull))
		case UpdateWaiting:
			return fmt.Sprintf("- %s: waiting for a free slot (`updates.prConcurrentLimit`)", mdquote.Code(u.Package))
		}
		return fmt.Sprintf("- %s: #%d open", mdquote.Code(u.Package), u.Pull)
	})
	if f.Truncated {
		b.WriteString("\n_Some sections are cut short: `/porch list` shows everything._\n")
	}
	return b.String()
}

// writeSection writes a heading and n rows (at most dashboardMaxRows).
func writeSection(b *strings.Builder, title string, n int, empty string, row func(int) string) {
	b.WriteString("\n## " + title + "\n\n")
	if n == 0 {
		b.WriteString(empty + "\n")
		return
	}
	for i := range min(n, dashboardMaxRows) {
		b.WriteString(row(i) + "\n")
	}
	if n > dashboardMaxRows {
		fmt.Fprintf(b, "- … and %d more\n", n-dashboardMaxRows)
	}
}

// proposalLine is one proposal with its verdict and who is still needed.
func proposalLine(p Proposal) string {
	name := p.Package
	if p.Workspace != "" {
		name += "/" + p.Workspace
	}
	line := fmt.Sprintf("- #%d %s: ", p.Number, mdquote.Code(name))
	v := p.Verdict
	switch {
	case v == nil:
		return line + "approval not judged (" + mdquote.Text(p.Problem) + ")"
	case v.Satisfied:
		return line + fmt.Sprintf("approved (%d/%d)", len(v.Approvers), v.Required)
	}
	line += fmt.Sprintf("waiting for approval (%d/%d)", len(v.Approvers), v.Required)
	if p.StillNeeded != "" {
		line += "; still needed: " + p.StillNeeded
	}
	if len(v.MissingGates) > 0 {
		names := make([]string, len(v.MissingGates))
		for i, g := range v.MissingGates {
			names[i] = g.ConditionType
		}
		line += "; readiness gates not met: " + strings.Join(names, ", ")
	}
	if v.RenderProblem != "" {
		line += "; " + v.RenderProblem
	}
	return line
}

// StillNeeded says who may still approve a proposal: n more of the
// configured approvers (less those counted and the author when
// self-approval is off), or n more people with write access.
func StillNeeded(res approval.Result, approvers []string, author string, allowSelf bool) string {
	n := res.ApproversNeeded()
	if n == 0 {
		return ""
	}
	if len(approvers) == 0 {
		return fmt.Sprintf("%d more with write access", n)
	}
	counted := map[string]bool{}
	for _, a := range res.Approvers {
		counted[approval.LoginKey(a.User)] = true
	}
	var left []string
	for _, a := range approvers {
		k := approval.LoginKey(a)
		if counted[k] || !allowSelf && k == approval.LoginKey(author) {
			continue
		}
		left = append(left, "@"+strings.TrimPrefix(a, "@"))
	}
	if len(left) == 0 {
		return fmt.Sprintf("%d more, but no configured approver is left", n)
	}
	return fmt.Sprintf("%d more of %s", n, strings.Join(left, ", "))
}

// renderWords says a render state.
func renderWords(st rendercheck.RenderState) string {
	switch st {
	case rendercheck.RenderPassed:
		return "passed ✅"
	case rendercheck.RenderFailed:
		return "failed ❌"
	case rendercheck.RenderPending:
		return "running ⏳"
	}
	return "not reported"
}

func (f Facts) link(path string) string {
	return strings.TrimSuffix(f.Web, "/") + "/" + f.Repo + "/" + path
}
