package config

import (
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/kptfile"
)

var update = flag.Bool("update", false, "rewrite golden files")

const file = ".github/porchbot.yaml"

const minimal = "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"

// permissive is a server that allows everything but exec functions.
var permissive = ServerLimits{AllowSelfApproval: true, AllowAutomerge: true}

func TestDefault(t *testing.T) {
	c := Default()
	if c.Packages.Root != "" || c.Packages.DeploymentBranch != "" || c.Packages.Deployment ||
		c.Lifecycle.PublishOn != PublishOnMerge || !c.Lifecycle.Releases || c.Lifecycle.IndexBranch != DefaultIndexBranch ||
		c.Approvals.Required != 1 || len(c.Approvals.Approvers) != 0 || c.Approvals.AllowSelfApproval ||
		c.Render.OnDraftPush != OnDraftPushCommit || c.Render.PushOnFailure || len(c.Render.Mutators) != 0 || len(c.Functions.Exec) != 0 ||
		!reflect.DeepEqual(c.Updates.Labels, []string{"porch/update"}) || len(c.Updates.Reviewers) != 0 ||
		c.Updates.PRConcurrentLimit != 10 || c.Updates.Automerge || c.Updates.Strategy != "" ||
		c.Updates.OnConflict != ConflictUpstream || len(c.Variants) != 0 {
		t.Errorf("Default() = %+v", c)
	}
	if Default() == Default() {
		t.Error("Default returns a shared value")
	}
}

func TestDefaultFor(t *testing.T) {
	c := DefaultFor(ServerLimits{MinApprovals: 2, MaxPRConcurrentLimit: 4})
	if c.Approvals.Required != 2 || c.Updates.PRConcurrentLimit != 4 {
		t.Errorf("DefaultFor raised/lowered wrongly: %+v", c)
	}
	c = DefaultFor(ServerLimits{MinApprovals: 0, MaxPRConcurrentLimit: 50})
	if c.Approvals.Required != 1 || c.Updates.PRConcurrentLimit != 10 {
		t.Errorf("DefaultFor changed defaults within limits: %+v", c)
	}
}

func TestParseMinimalIsDefault(t *testing.T) {
	for _, limits := range []ServerLimits{{}, {MinApprovals: 3, MaxPRConcurrentLimit: 5}} {
		c, err := Parse(file, []byte(minimal), limits)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(c, DefaultFor(limits)) {
			t.Errorf("minimal file = %+v, want DefaultFor(%+v)", c, limits)
		}
	}
	// Explicit nulls are the same as absent keys.
	c, err := Parse(file, []byte(minimal+"packages:\napprovals:\n  required: ~\n  approvers: null\n"), ServerLimits{})
	if err != nil || !reflect.DeepEqual(c, Default()) {
		t.Errorf("nulls: %+v, %v", c, err)
	}
}

func TestParseFull(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(file, data, ServerLimits{ExecAllowlist: []string{"kubeconform=/usr/local/bin/kubeconform"}, AllowSelfApproval: true, AllowAutomerge: true, MaxPRConcurrentLimit: 5, MinApprovals: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Packages:  Packages{Root: "pkgs", DeploymentBranch: "release", Deployment: true},
		Lifecycle: Lifecycle{PublishOn: PublishOnNever, Releases: false, IndexBranch: DefaultIndexBranch, RebaseDrafts: false, DeletionWithDownstreams: DeletionAllow},
		Approvals: Approvals{Required: 2, AllowSelfApproval: true, Approvers: []UserOrTeam{
			{Login: "alice"}, {Org: "org", Team: "platform"}, {Login: "renovate[bot]"}}},
		Render: Render{OnDraftPush: OnDraftPushCheck, Kpt: "v1.0.0-beta.67", PushOnFailure: true,
			Mutators:   []kptfile.Function{{Image: "gcr.io/kpt-fn/set-labels:v0.2.0", ConfigMap: map[string]string{"team": "platform"}}},
			Validators: []kptfile.Function{{Exec: "kubeconform", Selectors: []kptfile.Selector{{Kind: "Deployment"}}}}},
		Functions: Functions{Exec: map[string]string{"kubeconform": "/usr/local/bin/kubeconform"}},
		Updates: Updates{Labels: []string{"porch/update", "dependencies"}, Reviewers: []UserOrTeam{{Org: "org", Team: "platform"}},
			PRConcurrentLimit: 3, Automerge: true, Strategy: kptfile.FastForward, OnConflict: ConflictLocal},
		Dashboard: Dashboard{Enabled: false},
	}
	variants := c.Variants
	c.Variants = nil
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", c, want)
	}
	if len(variants) != 2 {
		t.Fatalf("variants: %+v", variants)
	}
	v0, v1 := variants[0], variants[1]
	if v0.Upstream != (VariantUpstream{Package: "base/upf", Revision: LatestRevision}) ||
		!reflect.DeepEqual(v0.Targets.Repositories, []string{"org/edge-1", "org/edge-2"}) ||
		v0.Downstream.Package != "upf" || v0.Labels["tier"] != "edge" || v0.Namespace != "{{ .Repository.Name }}" ||
		v0.AdoptionPolicy != AdoptNone || v0.DeletionPolicy != DeleteOnRemove || v0.Paused {
		t.Errorf("variant 0 = %+v", v0)
	}
	if v1.Upstream.Revision != 3 || v1.Targets.Topic != "edge" || v1.Annotations["example.com/owner"] != "platform" ||
		len(v1.Pipeline.Mutators) != 1 || !reflect.DeepEqual(v1.Injectors, []string{"config/site.yaml"}) ||
		v1.AdoptionPolicy != AdoptExisting || v1.DeletionPolicy != OrphanOnRemove || !v1.Paused {
		t.Errorf("variant 1 = %+v", v1)
	}
	edge := Repository{Owner: "org", Name: "Edge-1"}
	if pkg, err := v0.DownstreamPackage(edge); err != nil || pkg != "upf" {
		t.Errorf("DownstreamPackage = %q, %v", pkg, err)
	}
	if ns, err := v0.DownstreamNamespace(Repository{Owner: "org", Name: "edge-1"}); err != nil || ns != "edge-1" {
		t.Errorf("DownstreamNamespace = %q, %v", ns, err)
	}
	if _, err := v0.DownstreamNamespace(edge); err == nil || !strings.Contains(err.Error(), "lowercase") {
		t.Errorf("DownstreamNamespace(Edge-1) = %v, want an error", err)
	}
	if pkg, err := v1.DownstreamPackage(edge); err != nil || pkg != "sites/edge-1/smf" {
		t.Errorf("DownstreamPackage = %q, %v", pkg, err)
	}
	if ns, err := v1.DownstreamNamespace(edge); err != nil || ns != "" {
		t.Errorf("no namespace template: %q, %v", ns, err)
	}
}

func TestVariantDefaultsAndHandMade(t *testing.T) {
	c, err := Parse(file, []byte(minimal+"variants:\n- upstream: {package: base/upf}\n  targets: {repositories: [o/r]}\n"), ServerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	v := c.Variants[0]
	if v.AdoptionPolicy != AdoptNone || v.DeletionPolicy != DeleteOnRemove || v.Upstream.Revision != LatestRevision {
		t.Errorf("variant defaults: %+v", v)
	}
	if pkg, err := v.DownstreamPackage(Repository{Owner: "o", Name: "r"}); err != nil || pkg != "base/upf" {
		t.Errorf("default downstream package = %q, %v", pkg, err)
	}
	// A Variant built in code parses its templates on use.
	hand := Variant{Upstream: VariantUpstream{Package: "p"}, Downstream: VariantDownstream{Package: "{{ .Repository.Owner }}/p"}, Namespace: "{{ .Repository.Name | lower }}"}
	if pkg, err := hand.DownstreamPackage(Repository{Owner: "acme", Name: "X"}); err != nil || pkg != "acme/p" {
		t.Errorf("hand-made = %q, %v", pkg, err)
	}
	if ns, err := hand.DownstreamNamespace(Repository{Owner: "acme", Name: "X"}); err != nil || ns != "x" {
		t.Errorf("hand-made namespace = %q, %v", ns, err)
	}
	bad := Variant{Downstream: VariantDownstream{Package: "{{ printf \"%s\" 1 }}"}}
	if _, err := bad.DownstreamPackage(Repository{Owner: "a", Name: "b"}); err == nil {
		t.Error("a template with printf was accepted")
	}
}

func TestParseRepositoryTestdata(t *testing.T) {
	data, err := os.ReadFile("../../testdata/forge/catalog/.github/porchbot.yaml")
	if err != nil {
		t.Skip("no repository configuration in testdata")
	}
	c, err := Parse(file, data, ServerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Approvals.Approvers) != 1 || !c.Approvals.Approvers[0].IsTeam() || c.Approvals.Approvers[0].String() != "@acme/platform" {
		t.Errorf("approvers = %+v", c.Approvals.Approvers)
	}
}

func TestGoldenErrorListing(t *testing.T) {
	data, err := os.ReadFile("testdata/invalid.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse(file, data, ServerLimits{ExecAllowlist: []string{"my-fn"}, MaxPRConcurrentLimit: 20})
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v, want a *ValidationError", err)
	}
	got := err.Error() + "\n"
	if *update {
		if err := os.WriteFile("testdata/invalid.golden", []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/invalid.golden")
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("error listing:\n%s\nwant (testdata/invalid.golden):\n%s", got, want)
	}
	for i, p := range verr.Problems {
		if p.File != file || p.Line < 1 || p.Column < 1 || p.Message == "" {
			t.Errorf("problem %d lacks a position: %+v", i, p)
		}
	}
}

// TestParseSpecExample parses the example of the specification (section 2,
// with section 7's variant): it is the default configuration plus the
// approvers and the variant.
func TestParseSpecExample(t *testing.T) {
	data, err := os.ReadFile("testdata/spec-example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse(file, data, ServerLimits{})
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Packages.DeploymentBranch = "main"
	want.Approvals.Approvers = []UserOrTeam{{Login: "alice"}, {Org: "org", Team: "platform"}}
	want.Render.Mutators, want.Render.Validators = []kptfile.Function{}, []kptfile.Function{}
	variants := c.Variants
	c.Variants, want.Variants = nil, nil
	if !reflect.DeepEqual(c, want) {
		t.Errorf("Parse =\n%+v\nwant\n%+v", c, want)
	}
	if len(variants) != 1 || variants[0].Upstream.Package != "base/upf" || variants[0].Labels["tier"] != "edge" {
		t.Errorf("variants = %+v", variants)
	}
}

func TestIndexBranch(t *testing.T) {
	parse := func(b string) (*Config, error) {
		return Parse(".github/porchbot.yaml", []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nlifecycle:\n  indexBranch: "+b+"\n"), permissive)
	}
	if c, err := parse("catalog/index"); err != nil || c.Lifecycle.IndexBranch != "catalog/index" {
		t.Fatalf("catalog/index: %+v (%v)", c, err)
	}
	for b, want := range map[string]string{
		"bad..name":            "is not a valid branch name",
		"refs/heads/x":         "is not a valid branch name",
		"drafts/index/x":       "is under drafts/",
		"porch/update/catalog": "is under porch/update/",
		`""`:                   "lifecycle.indexBranch",
	} {
		if _, err := parse(b); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", b, err, want)
		}
	}
}

// TestDashboardConfig: dashboard.enabled defaults to true, reads a
// boolean, and anything else is an error at its line and column.
func TestDashboardConfig(t *testing.T) {
	parse := func(body string) (*Config, error) {
		return Parse(file, []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"+body), ServerLimits{})
	}
	if c, err := parse(""); err != nil || !c.Dashboard.Enabled {
		t.Fatalf("default: %+v %v", c, err)
	}
	if c, err := parse("dashboard:\n  enabled: false\n"); err != nil || c.Dashboard.Enabled {
		t.Fatalf("enabled: false: %+v %v", c, err)
	}
	for body, want := range map[string]string{
		"dashboard:\n  enabled: maybe\n": ".github/porchbot.yaml:4:12: dashboard.enabled",
		"dashboard:\n  title: x\n":       `.github/porchbot.yaml:4:3: unknown field "title"`,
		"dashboard: on\n":                ".github/porchbot.yaml:3:12: dashboard",
	} {
		if _, err := parse(body); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
}
