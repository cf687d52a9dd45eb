package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/proposals"
	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
)

func TestDashboardTicks(t *testing.T) {
	render := func(pkg, ws string) Action {
		return Action{Kind: ActionRender, Package: pkg, Workspace: ws}
	}
	update := func(pkg string) Action { return Action{Kind: ActionUpdate, Package: pkg} }
	box := func(tick, kind, target string) string {
		return fmt.Sprintf("- [%s] <!-- porch:%s %s --> label\n", tick, kind, target)
	}
	for _, tc := range []struct {
		name          string
		before, after string
		want          []Action
	}{
		{"nothing ticked", box(" ", "render", "a/w"), box(" ", "render", "a/w"), nil},
		{"one ticked", box(" ", "render", "a/w"), box("x", "render", "a/w"), []Action{render("a", "w")}},
		{"capital X", box(" ", "render", "a/w"), box("X", "render", "a/w"), []Action{render("a", "w")}},
		{"nested package", box(" ", "render", "net/upf/w1"), box("x", "render", "net/upf/w1"), []Action{render("net/upf", "w1")}},
		{"left ticked", box("x", "render", "a/w"), box("x", "render", "a/w"), nil},
		{"unticked", box("x", "render", "a/w"), box(" ", "render", "a/w"), nil},
		{"update retried", box(" ", "update", "upf"), box("x", "update", "upf"), []Action{update("upf")}},
		{"body order", box(" ", "update", "b") + box(" ", "render", "a/w"), box("x", "update", "b") + box("x", "render", "a/w"),
			[]Action{update("b"), render("a", "w")}},
		{"a line added ticked counts", "", box("x", "render", "a/w"), []Action{render("a", "w")}},
		{"render without workspace ignored", "", box("x", "render", "a"), nil},
		{"unknown kind ignored", "", box("x", "delete", "a"), nil},
		{"invalid package name ignored", "", box("x", "render", "../etc/w") + box("x", "update", "a/../b"), nil},
		{"invalid workspace ignored", "", box("x", "render", "a/w..x"), nil},
		{"indented is not a box", "", "  " + box("x", "render", "a/w"), nil},
		{"duplicate line counts once", "", box("x", "render", "a/w") + box("x", "render", "a/w"), []Action{render("a", "w")}},
		{"first line of a target wins", "", box(" ", "render", "a/w") + box("x", "render", "a/w"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Ticks(tc.before, tc.after)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("DashboardTicks = %v, want %v", got, tc.want)
			}
		})
	}
	// Bounded: at most dashboardMaxTicks actions per edit.
	var many strings.Builder
	for i := range 3 * dashboardMaxTicks {
		many.WriteString(box("x", "update", fmt.Sprintf("p%d", i)))
	}
	if n := len(Ticks("", many.String())); n != dashboardMaxTicks {
		t.Fatalf("%d actions from one edit", n)
	}
}

// TestDashboardBody: each section says what it holds; every box the body
// writes is unticked and reads back as the action it shows.
func TestDashboardBody(t *testing.T) {
	approved := &approval.Result{Satisfied: true, Required: 1, Approvers: []approval.CountedApproval{{User: "bob"}}}
	waiting := &approval.Result{Required: 2, Approvers: []approval.CountedApproval{{User: "bob"}},
		MissingGates: []approval.GateStatus{{ConditionType: "config.ready"}}}
	f := Facts{Repo: "acme/catalog", Web: "https://github.com", DeploymentBranch: "main",
		Packages: []proposals.PackageStatus{{Name: "basens", Dir: "basens", Latest: 3, Revisions: 3}, {Name: "new", Dir: "new"},
			{Name: "old", Latest: 2, Revisions: 2}},
		Drafts: []Draft{{Package: "basens", Workspace: "w1", Pull: 7, Render: rendercheck.RenderPassed},
			{Package: "net/upf", Workspace: "w2", Render: rendercheck.RenderFailed}},
		Proposals: []Proposal{{Number: 7, Package: "basens", Workspace: "w1", Verdict: approved},
			{Number: 8, Package: "net/upf", Workspace: "w2", Verdict: waiting, StillNeeded: "1 more of @carol"},
			{Number: 9, Package: "x", Problem: "head not fetched"}},
		Landings: []Landing{{Package: "basens", Commit: "0123456789abcdef", Count: 1}},
		Updates: []Update{{Package: "upf", Pull: 11, State: UpdateOpen},
			{Package: "smf", State: UpdateWaiting}, {Package: "amf", Pull: 12, State: UpdateFailed}},
		ConfigError: ".github/porchbot.yaml:3:1: unknown field \"colour\"", ConfigInForce: "the defaults",
	}
	body := Body(f)
	for _, want := range []string{
		"<!-- porchbot:dashboard -->\n",
		"## Configuration errors", "unknown field \"colour\"", "the defaults applies",
		"- `basens`: [v3](https://github.com/acme/catalog/tree/basens/v3)",
		"- `new`: no published revision", "- `old`: [v2](https://github.com/acme/catalog/tree/old/v2) (deleted)",
		"- [ ] <!-- porch:render basens/w1 --> `drafts/basens/w1`: render passed ✅ — #7 — tick to render again",
		"- [ ] <!-- porch:render net/upf/w2 --> `drafts/net/upf/w2`: render failed ❌ — tick to retry",
		"- #7 `basens/w1`: approved (1/1)",
		"- #8 `net/upf/w2`: waiting for approval (1/2); still needed: 1 more of @carol; readiness gates not met: config.ready",
		"- #9 `x`: approval not judged (head not fetched)",
		"- `basens`: landed at `0123456`, not published — `/porch publish basens`",
		"- `upf`: #11 open", "- `smf`: waiting for a free slot",
		"- [ ] <!-- porch:update amf --> `amf`: #12 failed its render — tick to retry the update",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if !IsBody(body) || IsBody("hello") {
		t.Error("IsDashboardBody")
	}
	order, ticked := dashboardBoxes(body)
	if fmt.Sprint(order) != "[render of `drafts/basens/w1` render of `drafts/net/upf/w2` update of `amf` again]" {
		t.Errorf("boxes: %v", order)
	}
	for a, on := range ticked {
		if on {
			t.Errorf("%v is ticked in a fresh body", a)
		}
	}
	empty := Body(Facts{Repo: "acme/x", DeploymentBranch: "main"})
	for _, want := range []string{"No packages yet", "No drafts.", "No open proposals.", "Nothing waits.", "No pending updates."} {
		if !strings.Contains(empty, want) {
			t.Errorf("empty dashboard lacks %q", want)
		}
	}
	if strings.Contains(empty, "Configuration errors") {
		t.Error("a dashboard without config errors has the section")
	}
	// Rows are bounded.
	big := Facts{Repo: "acme/x"}
	for i := range dashboardMaxRows + 5 {
		big.Packages = append(big.Packages, proposals.PackageStatus{Name: fmt.Sprintf("p%03d", i), Dir: "d", Latest: 1})
	}
	if b := Body(big); !strings.Contains(b, "… and 5 more") || strings.Contains(b, "p050") {
		t.Error("packages not bounded")
	}
}

func TestStillNeeded(t *testing.T) {
	one := approval.Result{Required: 2, Approvers: []approval.CountedApproval{{User: "Bob"}}}
	for _, tc := range []struct {
		name      string
		res       approval.Result
		approvers []string
		author    string
		self      bool
		want      string
	}{
		{"satisfied", approval.Result{Required: 1, Approvers: []approval.CountedApproval{{User: "bob"}}}, nil, "alice", false, ""},
		{"anyone with write", one, nil, "alice", false, "1 more with write access"},
		{"listed, counted and author left out", one, []string{"alice", "bob", "carol", "@acme/platform"}, "alice", false,
			"1 more of @carol, @acme/platform"},
		{"self-approval allowed", one, []string{"alice", "bob"}, "alice", true, "1 more of @alice"},
		{"nobody left", one, []string{"alice", "bob"}, "alice", false, "1 more, but no configured approver is left"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := StillNeeded(tc.res, tc.approvers, tc.author, tc.self); got != tc.want {
				t.Fatalf("StillNeeded = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDashboardFactsEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Facts
		want bool
	}{
		{"nothing", Facts{Repo: "acme/x"}, true},
		{"a package", Facts{Packages: []proposals.PackageStatus{{Name: "a"}}}, false},
		{"a draft", Facts{Drafts: []Draft{{Package: "a", Workspace: "w"}}}, false},
		{"an update waiting", Facts{Updates: []Update{{Package: "a", State: UpdateWaiting}}}, false},
		{"a configuration file", Facts{HasConfig: true}, false},
		{"a broken configuration", Facts{ConfigError: "x"}, false},
	} {
		if got := tc.f.Empty(); got != tc.want {
			t.Errorf("%s: Empty = %v", tc.name, got)
		}
	}
}
