package lifecycle

import (
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"

	"github.com/google/go-github/v60/github"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote/mdtest"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/update"
	"github.com/porchbot/porchbot/internal/variants"
)

// writers are porchbot's real templates, each given one piece of text
// that users control in every place it takes one (prefixed where an empty
// text is written otherwise: "(no notes)", "(removed)").
var writers = map[string]func(s string) string{
	"update pull request body": func(s string) string {
		up := UpstreamRevision{Session: &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}}, Package: "network/upf", Dir: "network/upf", Revision: 3}
		plan := &UpdatePlan{Upstream: up, Package: "upf", FromRef: "network/upf/v1", From: 1, OnConflict: "upstream", Files: map[string][]byte{},
			Conflicts: []update.Conflict{{File: "f" + s, Resource: "r" + s, Field: "k" + s, Local: "l" + s, Upstream: "u" + s, Taken: "upstream"}}}
		return UpdateBody(plan, "https://github.example/", []UpstreamNote{
			{Revision: 2, Tag: "network/upf/v2", URL: "https://github.example/acme/catalog/releases/tag/network/upf/v2", Body: "n" + s},
			{Revision: 3, Tag: "network/upf/v3", Body: "n" + s}})
	},
	"release notes": func(s string) string {
		return ReleaseNotes{Package: "network/upf", Revision: 2, Tag: "network/upf/v2", PreviousTag: "network/upf/v1",
			PR:        &ReleasePR{Number: 7, Title: s, URL: "https://github.example/acme/catalog/pull/7", Author: "alice"},
			Approvers: []string{"bob"}, Files: treediff.Diff{Modified: []string{"f" + s}}}.Markdown()
	},
	"render check": func(s string) string {
		steps := []render.Step{{Package: ".", Image: "gcr.io/kpt-fn/starlark:v0.5.0", Name: "n" + s, Kind: render.Validator,
			Status: render.StepFailed, Message: "m" + s, Stderr: "e" + s,
			Results: []*framework.Result{{Message: "r" + s, Severity: framework.Error}}}}
		rep := renderReport(renderFacts{Package: "p", Dir: "p", Err: errors.New(s), Result: ckResult(steps...)})
		return rep.Summary + "\n" + rep.Text
	},
	"dashboard": func(s string) string {
		return DashboardBody(DashboardFacts{Repo: "acme/catalog", Web: "https://github.example", DeploymentBranch: "main",
			Packages:      []PackageStatus{{Name: "p", Problem: "x" + s}},
			Proposals:     []DashboardProposal{{Number: 1, Title: s, Package: "p", Problem: "x" + s}},
			ConfigError:   "c" + s,
			ConfigInForce: "the last good one"})
	},
	"approval check": func(s string) string {
		return ApprovalResult{Summary: "Waiting", MissingGates: []GateStatus{{Package: "p" + s, ConditionType: "c" + s, Status: "False",
			Reason: "r" + s, Message: "m" + s}, {ConditionType: "c" + s, Status: "Unknown", Message: "m" + s}}}.Markdown(config.Approvals{})
	},
	"deletion render check": func(s string) string {
		rep := renderReport(renderFacts{Package: "p" + s, Dir: "d" + s, Missing: true, Deletion: true, DeploymentBranch: "main"})
		return rep.Summary + "\n" + rep.Text
	},
	"publish refusal": func(s string) string {
		return publishRefusalComment(&core.Session{DeploymentBranch: "main"}, core.Landing{Package: "p" + s}, LandingVerdict{reason: "the package differs"},
			[]string{"f" + s}, packages.DraftBranch("p"+s, "w"+s))
	},
	"variant pull request body": func(s string) string {
		up := &core.Session{Repo: core.Repo{Owner: "acme", Name: "catalog"}}
		upRev := UpstreamRevision{Session: up, Package: "u" + s, Dir: "d" + s, Revision: 2}
		a := variants.Action{Target: "acme/edge-1", Package: "p" + s, Revision: 2}
		m := variants.Mutation{Owner: variants.Ownership{Upstream: "acme/catalog", Package: "u" + s, Downstream: "p" + s},
			Spec: "s" + s, Labels: map[string]string{"k" + s: "v" + s}, Namespace: "n" + s}
		return variantCloneBody(up, &core.Session{Repo: core.Repo{Owner: "acme", Name: "edge-1"}}, a, upRev) +
			variantNote(up, a, config.Variant{Upstream: config.VariantUpstream{Package: "u" + s}}, m, nil)
	},
	"variant removal body": func(s string) string {
		return removalNote(variants.Action{Target: "acme/edge-1", Owner: variants.Ownership{Upstream: "acme/catalog", Package: "u" + s,
			Downstream: "d" + s, OnRemove: "o" + s}})
	},
	"unknown package reply": func(s string) string {
		return unknownPackage((&core.Session{DeploymentBranch: "main"}), "p"+s, []string{"p" + s + "x"}).Error()
	},
}

// checkWriters asserts that s, in every template, leaves the document's
// structure as a harmless text does and makes nothing live that porchbot
// did not write itself.
func checkWriters(t *testing.T, s string) {
	t.Helper()
	for name, write := range writers {
		doc, plain := write(s), write("q")
		if got, want := mdtest.Structure(doc), mdtest.Structure(plain); got != want {
			t.Fatalf("%s with %q: structure changed\n%s\ngot:\n%s\nwant:\n%s", name, s, doc, got, want)
		}
		if got, want := mdtest.Live(doc), mdtest.Live(plain); !slices.Equal(got, want) {
			t.Fatalf("%s with %q: live %q, porchbot's own %q in\n%s", name, s, got, want, doc)
		}
	}
}

// FuzzWritersQuote: no text in porchbot's templates changes the structure
// of what porchbot writes around it or mentions anyone.
func FuzzWritersQuote(f *testing.F) {
	for _, s := range []string{"</details>\n\n<!--\n", "```\n# x\n```", "| a |\n|---|\n", "@acme/platform #1 o/r#2 https://x.example www.x.example",
		"`` ` ``", "<summary>x</summary>", "-->", "\r\n\x00\u202e", "1. x\n> y\n===", "[x](javascript:alert(1))", "&lt;details&gt;"} {
		f.Add(s)
	}
	f.Fuzz(checkWriters)
}

// linkWriters put a name that users control into the URL of one of
// porchbot's links as well as into its text.
var linkWriters = map[string]func(s string) string{
	"publish refusal": func(s string) string {
		pr := &github.PullRequest{Base: &github.PullRequestBranch{Repo: &github.Repository{HTMLURL: github.String("https://github.example/acme/catalog")}}}
		return publishRefusalComment(&core.Session{DeploymentBranch: "main"}, core.Landing{Package: "p" + s}, LandingVerdict{reason: "the package differs", PR: pr},
			nil, packages.DraftBranch("p"+s, "w"))
	},
	"dashboard": func(s string) string {
		return DashboardBody(DashboardFacts{Repo: "acme/catalog", Web: "https://github.example", DeploymentBranch: "main",
			Packages: []PackageStatus{{Name: "p" + s, Dir: "p", Latest: 2}}, ConfigInForce: "the last good one"})
	},
}

var linkDest = regexp.MustCompile(`(?m)^(\s*Link) .*$`)

// TestNamesInLinksStayInTheirLinks: a name in a link's URL cannot end the
// link and start markup after it; the documents differ only in where the
// links point.
func TestNamesInLinksStayInTheirLinks(t *testing.T) {
	for _, s := range []string{")<!--", ") @acme/platform #1", "](https://evil.example)", "` </details>", "x y\n\n# z", "<details>"} {
		for name, write := range linkWriters {
			doc, plain := write(s), write("q")
			got := linkDest.ReplaceAllString(mdtest.Structure(doc), "$1")
			if want := linkDest.ReplaceAllString(mdtest.Structure(plain), "$1"); got != want {
				t.Errorf("%s with %q: structure changed\n%s\ngot:\n%s\nwant:\n%s", name, s, doc, got, want)
			}
			if got, want := mdtest.Live(doc), mdtest.Live(plain); len(got) != len(want) {
				t.Errorf("%s with %q: live %q, porchbot's own %q in\n%s", name, s, got, want, doc)
			}
		}
	}
}
