package config

import (
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Limits bound the configuration file: 1 MiB, 32 levels of nesting,
// 100 000 nodes, no YAML anchors or aliases.
var Limits = strictyaml.DefaultLimits

// Fields of each mapping, in the order the specification documents them.
var (
	topFields       = []string{"apiVersion", "kind", "extends", "packages", "lifecycle", "approvals", "render", "functions", "updates", "variants", "dashboard", "flows"}
	packagesFields  = []string{"root", "deploymentBranch", "deployment"}
	lifecycleFields = []string{"publishOn", "releases", "indexBranch", "rebaseDrafts", "deletionWithDownstreams"}
	approvalsFields = []string{"required", "approvers", "allowSelfApproval"}
	renderFields    = []string{"onDraftPush", "kpt", "pushOnFailure", "mutators", "validators"}
	functionsFields = []string{"exec"}
	dashboardFields = []string{"enabled"}
	flowsFields     = []string{"allowWiderReaders"}
	updatesFields   = []string{"labels", "reviewers", "prConcurrentLimit", "automerge", "strategy", "onConflict", "rollouts"}
)

// Parse reads a repository configuration strictly and checks it against the
// server's limits. filename is the name problems give the file (normally
// Path). The result has the defaults (DefaultFor(limits)) where the file is
// silent; an explicit null ("key:" or "~") is the same as leaving the key
// out.
//
// Every problem is reported, each at its line and column, in a
// *ValidationError; the Config is nil then. A file that exists must say
// apiVersion: porchbot.dev/v1alpha1 and kind: RepositoryConfig; a missing
// file is not Parse's business (use DefaultFor). A file that extends
// presets gets them (ParseChain), but for the organisation's, which
// Parse cannot read: use ParseChain with a PresetReader for those.
func Parse(filename string, data []byte, limits ServerLimits) (*Config, error) {
	cfg, _, err := ParseChain(filename, data, limits, nil)
	return cfg, err
}

type decoder struct {
	r            *strictyaml.Reader
	limits       ServerLimits
	cfg          *Config
	declaredExec map[string]bool // names under functions.exec, allowed or not
}

func (d *decoder) top(n *yaml.Node) {
	if n.Kind != yaml.MappingNode {
		d.r.Report(n, "", fmt.Sprintf("the configuration must be a mapping (apiVersion: %s, kind: %s, ...), got %s", APIVersion, Kind, strictyaml.Describe(n)))
		return
	}
	f, _ := d.r.Mapping(n, "", topFields...)
	d.r.Require(n, "", f, "apiVersion", "kind")
	if v := f["apiVersion"]; v != nil {
		if s, ok := d.r.String(v, "apiVersion"); ok && s != APIVersion {
			d.r.Errorf(v, "apiVersion", "must be %s, got %q", APIVersion, s)
		}
	}
	if v := f["kind"]; v != nil {
		if s, ok := d.r.String(v, "kind"); ok && s != Kind {
			d.r.Errorf(v, "kind", "must be %s, got %q", Kind, s)
		}
	}
	if v := f["packages"]; v != nil {
		d.packages(v)
	}
	if v := f["lifecycle"]; v != nil {
		d.lifecycle(v)
	}
	if v := f["approvals"]; v != nil {
		d.approvals(v)
	}
	if v := f["functions"]; v != nil {
		d.functions(v)
	}
	if v := f["render"]; v != nil {
		d.render(v)
	}
	if v := f["updates"]; v != nil {
		d.updates(v)
	}
	if v := f["variants"]; v != nil {
		d.variants(v)
	}
	if v := f["dashboard"]; v != nil {
		d.dashboard(v)
	}
	if v := f["flows"]; v != nil {
		d.flows(v)
	}
}

func (d *decoder) flows(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "flows", flowsFields...)
	if !ok {
		return
	}
	if v := f["allowWiderReaders"]; v != nil {
		if b, ok := d.r.Bool(v, "flows.allowWiderReaders"); ok {
			d.cfg.Flows.AllowWiderReaders = b
		}
	}
}

func (d *decoder) dashboard(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "dashboard", dashboardFields...)
	if !ok {
		return
	}
	if v := f["enabled"]; v != nil {
		if b, ok := d.r.Bool(v, "dashboard.enabled"); ok {
			d.cfg.Dashboard.Enabled = b
		}
	}
}

func (d *decoder) lifecycle(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "lifecycle", lifecycleFields...)
	if !ok {
		return
	}
	if v := f["publishOn"]; v != nil {
		if s, ok := d.r.Enum(v, "lifecycle.publishOn", PublishOnMerge, PublishOnNever); ok {
			d.cfg.Lifecycle.PublishOn = s
		}
	}
	if v := f["releases"]; v != nil {
		if b, ok := d.r.Bool(v, "lifecycle.releases"); ok {
			d.cfg.Lifecycle.Releases = b
		}
	}
	if v := f["rebaseDrafts"]; v != nil {
		if b, ok := d.r.Bool(v, "lifecycle.rebaseDrafts"); ok {
			d.cfg.Lifecycle.RebaseDrafts = b
		}
	}
	if v := f["indexBranch"]; v != nil {
		if s, ok := d.r.NonEmptyString(v, "lifecycle.indexBranch"); ok {
			if reason := indexBranchProblem(s); reason != "" {
				d.r.Errorf(v, "lifecycle.indexBranch", "%q %s", s, reason)
			} else {
				d.cfg.Lifecycle.IndexBranch = s
			}
		}
	}
	if v := f["deletionWithDownstreams"]; v != nil {
		if s, ok := d.r.Enum(v, "lifecycle.deletionWithDownstreams", DeletionRequireAck, DeletionAllow); ok {
			d.cfg.Lifecycle.DeletionWithDownstreams = s
		}
	}
}

// indexBranchProblem says why a branch cannot hold the package index: not a
// valid branch name, or one of porchbot's own kinds of branch.
func indexBranchProblem(b string) string {
	if err := plumbing.NewBranchReferenceName(b).Validate(); err != nil || strings.HasPrefix(b, "refs/") {
		return "is not a valid branch name"
	}
	for _, prefix := range []string{"drafts/", "porch/update/"} {
		if strings.HasPrefix(b, prefix) {
			return "is under " + prefix + ", porchbot's branches of another kind"
		}
	}
	return ""
}

// usersOrTeams reads a list of "login" / "@org/team" entries.
func (d *decoder) usersOrTeams(n *yaml.Node, field string) []UserOrTeam {
	list, nodes, ok := d.r.Strings(n, field)
	if !ok {
		return nil
	}
	out := make([]UserOrTeam, 0, len(list))
	seen := map[string]*yaml.Node{}
	for i, s := range list {
		u, problem := parseUserOrTeam(s)
		if problem != "" {
			d.r.Errorf(nodes[i], field, "%s", problem)
			continue
		}
		key := strings.ToLower(u.String())
		if first, dup := seen[key]; dup {
			d.r.Errorf(nodes[i], field, "%q is listed twice (first at %d:%d)", s, first.Line, first.Column)
			continue
		}
		seen[key] = nodes[i]
		out = append(out, u)
	}
	return out
}
