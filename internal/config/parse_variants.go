package config

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/strictyaml"
)

var (
	variantFields    = []string{"upstream", "targets", "downstream", "labels", "annotations", "namespace", "pipeline", "injectors", "adoptionPolicy", "deletionPolicy", "paused", "rollout"}
	vUpstreamFields  = []string{"package", "revision"}
	targetsFields    = []string{"repositories", "repositorySelector"}
	selectorFields   = []string{"topic"}
	downstreamFields = []string{"package"}
)

// sampleRepository renders templates of variants whose targets are chosen
// by topic, to catch templates that cannot give a valid name.
var sampleRepository = Repository{Owner: "example-org", Name: "example-repo"}

func (d *decoder) variants(n *yaml.Node) {
	items, ok := d.r.Sequence(n, "variants")
	if !ok {
		return
	}
	// (repository, downstream package) → where it was first produced.
	produced := map[string]string{}
	for i, it := range items {
		field := strictyaml.Index("variants", i)
		v, ok := d.variant(it, field)
		if !ok {
			continue
		}
		d.checkDuplicateTargets(v, it, field, produced)
		if v.Rollout != nil {
			if _, dup := d.cfg.RolloutOf(v.Upstream.Package); dup {
				d.r.Errorf(it, field+".rollout", "package %q has a rollout already (in updates.rollouts or an earlier variant)", v.Upstream.Package)
				continue
			}
		}
		d.cfg.Variants = append(d.cfg.Variants, v)
	}
}

func (d *decoder) variant(n *yaml.Node, field string) (Variant, bool) {
	v := Variant{AdoptionPolicy: AdoptNone, DeletionPolicy: DeleteOnRemove}
	before := d.r.Count()
	f, ok := d.r.Mapping(n, field, variantFields...)
	if !ok {
		return v, false
	}
	d.r.Require(n, field, f, "upstream", "targets")
	if u := f["upstream"]; u != nil {
		d.variantUpstream(u, field+".upstream", &v)
	}
	if t := f["targets"]; t != nil {
		d.targets(t, field+".targets", &v)
	}
	if ds := f["downstream"]; ds != nil {
		if df, ok := d.r.Mapping(ds, field+".downstream", downstreamFields...); ok {
			if p := df["package"]; p != nil {
				if s, ok := d.r.NonEmptyString(p, field+".downstream.package"); ok {
					v.Downstream.Package = s
					v.downstream = d.template(p, field+".downstream.package", s)
				}
			}
		}
	}
	if l := f["labels"]; l != nil {
		v.Labels = d.k8sMap(l, field+".labels", true)
	}
	if a := f["annotations"]; a != nil {
		v.Annotations = d.k8sMap(a, field+".annotations", false)
	}
	if ns := f["namespace"]; ns != nil {
		if s, ok := d.r.String(ns, field+".namespace"); ok && s != "" {
			v.Namespace = s
			v.namespace = d.template(ns, field+".namespace", s)
		}
	}
	if p := f["pipeline"]; p != nil {
		v.Pipeline = *kptfile.DecodePipeline(d.r, p, field+".pipeline")
	}
	if in := f["injectors"]; in != nil {
		list, nodes, _ := d.r.Strings(in, field+".injectors")
		for i, s := range list {
			if problem := relativeFileProblem(s); problem != "" {
				d.r.Errorf(nodes[i], strictyaml.Index(field+".injectors", i), "%q %s", s, problem)
				continue
			}
			v.Injectors = append(v.Injectors, s)
		}
	}
	if a := f["adoptionPolicy"]; a != nil {
		if s, ok := d.r.Enum(a, field+".adoptionPolicy", AdoptNone, AdoptExisting); ok {
			v.AdoptionPolicy = s
		}
	}
	if dp := f["deletionPolicy"]; dp != nil {
		if s, ok := d.r.Enum(dp, field+".deletionPolicy", DeleteOnRemove, OrphanOnRemove); ok {
			v.DeletionPolicy = s
		}
	}
	if p := f["paused"]; p != nil {
		if b, ok := d.r.Bool(p, field+".paused"); ok {
			v.Paused = b
		}
	}
	if r := f["rollout"]; r != nil && v.Upstream.Package != "" {
		if ro, ok := d.rollout(r, field+".rollout", v.Upstream.Package, variantRolloutFields); ok {
			v.Rollout = &ro
		}
	}
	if d.r.Count() != before {
		return v, false
	}
	d.checkRendered(v, f, field)
	return v, d.r.Count() == before
}

func (d *decoder) variantUpstream(n *yaml.Node, field string, v *Variant) {
	f, ok := d.r.Mapping(n, field, vUpstreamFields...)
	if !ok {
		return
	}
	d.r.Require(n, field, f, "package")
	if p := f["package"]; p != nil {
		if s, ok := d.r.String(p, field+".package"); ok {
			if err := packages.ValidateName(s); err != nil {
				d.r.Errorf(p, field+".package", "%v", err)
			} else {
				v.Upstream.Package = s
			}
		}
	}
	if r := f["revision"]; r != nil {
		s, ok := d.r.String(r, field+".revision")
		if !ok {
			return
		}
		if s == "latest" {
			v.Upstream.Revision = LatestRevision
			return
		}
		if n, ok := packages.ParseRevision(s); ok {
			v.Upstream.Revision = n
			return
		}
		msg := fmt.Sprintf(`must be "latest" or v<N> with N ≥ 1, got %s`, strictyaml.Describe(r))
		if r.ShortTag() == "!!int" {
			msg += fmt.Sprintf(" (write v%s)", r.Value)
		}
		d.r.Errorf(r, field+".revision", "%s", msg)
	}
}

func (d *decoder) targets(n *yaml.Node, field string, v *Variant) {
	f, ok := d.r.Mapping(n, field, targetsFields...)
	if !ok {
		return
	}
	repos, sel := f["repositories"], f["repositorySelector"]
	switch {
	case repos == nil && sel == nil:
		d.r.Errorf(n, field, "give repositories or repositorySelector")
		return
	case repos != nil && sel != nil:
		d.r.Errorf(sel, field, "give repositories or repositorySelector, not both")
		return
	}
	if repos != nil {
		list, nodes, ok := d.r.Strings(repos, field+".repositories")
		if !ok {
			return
		}
		if len(list) == 0 && len(repos.Content) == 0 {
			d.r.Errorf(repos, field+".repositories", "must name at least one repository")
		}
		seen := map[string]bool{}
		for i, s := range list {
			if problem := repositoryProblem(s); problem != "" {
				d.r.Errorf(nodes[i], field+".repositories", "%s", problem)
				continue
			}
			if seen[strings.ToLower(s)] {
				d.r.Errorf(nodes[i], field+".repositories", "%q is listed twice", s)
				continue
			}
			seen[strings.ToLower(s)] = true
			v.Targets.Repositories = append(v.Targets.Repositories, s)
		}
		return
	}
	sf, ok := d.r.Mapping(sel, field+".repositorySelector", selectorFields...)
	if !ok {
		return
	}
	if !d.r.Require(sel, field+".repositorySelector", sf, "topic") {
		return
	}
	t := sf["topic"]
	if s, ok := d.r.String(t, field+".repositorySelector.topic"); ok {
		if problem := topicProblem(s); problem != "" {
			d.r.Errorf(t, field+".repositorySelector.topic", "%q: %s", s, problem)
			return
		}
		v.Targets.Topic = s
	}
}

func (d *decoder) template(n *yaml.Node, field, src string) *nameTemplate {
	t, err := parseNameTemplate(src)
	if err != nil {
		d.r.Errorf(n, field, "%v", err)
		return nil
	}
	return t
}

// k8sMap reads labels (values checked as label values) or annotations.
func (d *decoder) k8sMap(n *yaml.Node, field string, labels bool) map[string]string {
	m, ok := d.r.StringMap(n, field)
	if !ok {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		value, present := m[k.Value]
		if !present {
			continue
		}
		f := strictyaml.Join(field, k.Value)
		if problem := qualifiedNameProblem(k.Value); problem != "" {
			d.r.Errorf(k, f, "key %q: %s", k.Value, problem)
			delete(m, k.Value)
			continue
		}
		if labels {
			if problem := labelValueProblem(value); problem != "" {
				d.r.Errorf(val, f, "value %q: %s", value, problem)
				delete(m, k.Value)
			}
		}
	}
	return m
}

// checkRendered renders the variant's templates for each listed target (or
// a sample repository for a topic) and reports names that are not valid.
func (d *decoder) checkRendered(v Variant, f map[string]*yaml.Node, field string) {
	targets := make([]Repository, 0, len(v.Targets.Repositories))
	for _, full := range v.Targets.Repositories {
		owner, name, _ := strings.Cut(full, "/")
		targets = append(targets, Repository{Owner: owner, Name: name})
	}
	if len(targets) == 0 {
		targets = append(targets, sampleRepository)
	}
	for _, repo := range targets {
		if v.Downstream.Package != "" {
			if _, err := v.DownstreamPackage(repo); err != nil {
				d.r.Errorf(valueOf(f["downstream"], "package"), field+".downstream.package", "%v", err)
				break
			}
		}
	}
	for _, repo := range targets {
		if _, err := v.DownstreamNamespace(repo); err != nil {
			d.r.Errorf(f["namespace"], field+".namespace", "%v", err)
			break
		}
	}
}

// checkDuplicateTargets reports a (repository, downstream package) pair that
// an earlier variant already produces: two variants would fight over one
// downstream package.
func (d *decoder) checkDuplicateTargets(v Variant, n *yaml.Node, field string, produced map[string]string) {
	for _, full := range v.Targets.Repositories {
		owner, name, _ := strings.Cut(full, "/")
		pkg, err := v.DownstreamPackage(Repository{Owner: owner, Name: name})
		if err != nil {
			continue
		}
		key := strings.ToLower(full) + "\x00" + pkg
		if first, dup := produced[key]; dup {
			d.r.Errorf(n, field, "downstream package %q in %s is already produced by %s", pkg, full, first)
			continue
		}
		produced[key] = field
	}
}

// valueOf is the value of key in mapping m (m itself when absent).
func valueOf(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return m
}
