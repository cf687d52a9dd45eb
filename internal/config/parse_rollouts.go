package config

import (
	"regexp"
	"strings"
	"time"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/strictyaml"
)

var (
	rolloutFields        = []string{"package", "waves", "success", "deploymentContexts"}
	variantRolloutFields = []string{"waves", "success", "deploymentContexts"}
	waveFields           = []string{"name", "repositories", "topic", "labels", "maxInProgress", "soak"}
	waveNamePattern      = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$`)
	repoGlobPattern      = regexp.MustCompile(`^[A-Za-z0-9_.*?-]+/[A-Za-z0-9_.*?-]+$`)
)

// rollouts reads updates.rollouts.
func (d *decoder) rollouts(n *yaml.Node) {
	items, ok := d.r.Sequence(n, "updates.rollouts")
	if !ok {
		return
	}
	if len(items) > MaxRollouts {
		d.r.Errorf(n, "updates.rollouts", "at most %d rollouts, got %d", MaxRollouts, len(items))
		return
	}
	seen := map[string]bool{}
	for i, it := range items {
		field := strictyaml.Index("updates.rollouts", i)
		r, ok := d.rollout(it, field, "", rolloutFields)
		if !ok {
			continue
		}
		if seen[r.Package] {
			d.r.Errorf(it, field+".package", "package %q has a rollout already", r.Package)
			continue
		}
		seen[r.Package] = true
		d.cfg.Updates.Rollouts = append(d.cfg.Updates.Rollouts, r)
	}
}

// rollout reads one rollout; pkg is the variant's upstream package for a
// variant's rollout ("" reads it from the package field).
func (d *decoder) rollout(n *yaml.Node, field, pkg string, fields []string) (Rollout, bool) {
	before := d.r.Count()
	r := Rollout{Package: pkg, Success: SuccessDeployed, DeploymentContexts: DefaultDeploymentContexts}
	f, ok := d.r.Mapping(n, field, fields...)
	if !ok {
		return r, false
	}
	if pkg == "" {
		d.r.Require(n, field, f, "package", "waves")
	} else {
		d.r.Require(n, field, f, "waves")
	}
	if p := f["package"]; p != nil {
		if s, ok := d.r.NonEmptyString(p, field+".package"); ok {
			if err := packages.ValidateName(s); err != nil {
				d.r.Errorf(p, field+".package", "%v", err)
			}
			r.Package = s
		}
	}
	if w := f["waves"]; w != nil {
		r.Waves = d.waves(w, field+".waves")
	}
	if s := f["success"]; s != nil {
		if v, ok := d.r.Enum(s, field+".success", SuccessDeployed, SuccessMerged); ok {
			r.Success = v
		}
	}
	if c := f["deploymentContexts"]; c != nil {
		list, nodes, ok := d.r.Strings(c, field+".deploymentContexts")
		switch {
		case !ok:
		case len(list) > MaxRolloutContexts:
			d.r.Errorf(c, field+".deploymentContexts", "at most %d patterns, got %d", MaxRolloutContexts, len(list))
		default:
			for i, s := range list {
				if s == "" || len(s) > 255 {
					d.r.Errorf(nodes[i], strictyaml.Index(field+".deploymentContexts", i), "a pattern of 1 to 255 characters, got %d", len(s))
				}
			}
			r.DeploymentContexts = list
		}
	}
	return r, d.r.Count() == before
}

func (d *decoder) waves(n *yaml.Node, field string) []RolloutWave {
	items, ok := d.r.Sequence(n, field)
	if !ok {
		return nil
	}
	switch {
	case len(items) == 0:
		d.r.Errorf(n, field, "a rollout needs at least one wave")
		return nil
	case len(items) > MaxRolloutWaves:
		d.r.Errorf(n, field, "at most %d waves, got %d", MaxRolloutWaves, len(items))
		return nil
	}
	var out []RolloutWave
	names := map[string]bool{}
	for i, it := range items {
		wf := strictyaml.Index(field, i)
		f, ok := d.r.Mapping(it, wf, waveFields...)
		if !ok {
			continue
		}
		d.r.Require(it, wf, f, "name")
		var w RolloutWave
		if v := f["name"]; v != nil {
			if s, ok := d.r.NonEmptyString(v, wf+".name"); ok {
				switch {
				case !waveNamePattern.MatchString(s):
					d.r.Errorf(v, wf+".name", "%q: lower-case letters, digits and '-', at most 40 characters", s)
				case s == "remaining":
					d.r.Errorf(v, wf+".name", `"remaining" names the wave of the downstreams no wave selects; choose another name`)
				case names[s]:
					d.r.Errorf(v, wf+".name", "wave %q is listed twice", s)
				}
				names[s] = true
				w.Name = s
			}
		}
		if v := f["repositories"]; v != nil {
			list, nodes, ok := d.r.Strings(v, wf+".repositories")
			if ok && len(list) > MaxWaveRepositories {
				d.r.Errorf(v, wf+".repositories", "at most %d entries, got %d", MaxWaveRepositories, len(list))
			}
			for j, s := range list {
				if !repoGlobPattern.MatchString(s) {
					d.r.Errorf(nodes[j], strictyaml.Index(wf+".repositories", j), "%q is not owner/name (or a glob of it, like acme/edge-*)", s)
				}
			}
			w.Repositories = list
		}
		if v := f["topic"]; v != nil {
			if s, ok := d.r.NonEmptyString(v, wf+".topic"); ok {
				w.Topic = strings.ToLower(s)
			}
		}
		if v := f["labels"]; v != nil {
			w.Labels = d.k8sMap(v, wf+".labels", true)
		}
		if v := f["maxInProgress"]; v != nil {
			if m, ok := d.r.Int(v, wf+".maxInProgress"); ok {
				if m < 0 || m > MaxWaveInProgress {
					d.r.Errorf(v, wf+".maxInProgress", "0 (no bound) to %d, got %d", MaxWaveInProgress, m)
				}
				w.MaxInProgress = m
			}
		}
		if v := f["soak"]; v != nil {
			if s, ok := d.r.NonEmptyString(v, wf+".soak"); ok {
				dur, err := time.ParseDuration(s)
				switch {
				case err != nil:
					d.r.Errorf(v, wf+".soak", "%q is not a duration (like 30m, 2h or 48h)", s)
				case dur < 0 || dur > MaxSoak:
					d.r.Errorf(v, wf+".soak", "0 to %s, got %s", MaxSoak, dur)
				}
				w.Soak = dur
			}
		}
		out = append(out, w)
	}
	return out
}
