package config

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render/builtins"
	"github.com/porchbot/porchbot/internal/strictyaml"
	"github.com/porchbot/porchbot/internal/suggest"
)

func (d *decoder) packages(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "packages", packagesFields...)
	if !ok {
		return
	}
	if v := f["root"]; v != nil {
		if s, ok := d.r.String(v, "packages.root"); ok {
			if problem := rootProblem(s); problem != "" {
				d.r.Errorf(v, "packages.root", "%q %s", s, problem)
			} else {
				d.cfg.Packages.Root = packages.NormalizeRoot(s)
			}
		}
	}
	if v := f["deploymentBranch"]; v != nil {
		if s, ok := d.r.String(v, "packages.deploymentBranch"); ok {
			if s != "" {
				if err := packages.ValidateBranchName(s); err != nil {
					d.r.Errorf(v, "packages.deploymentBranch", "%v", err)
					s = ""
				}
			}
			d.cfg.Packages.DeploymentBranch = s
		}
	}
	if v := f["deployment"]; v != nil {
		if b, ok := d.r.Bool(v, "packages.deployment"); ok {
			d.cfg.Packages.Deployment = b
		}
	}
}

// rootProblem checks packages.root: a relative directory of the repository
// outside .github.
func rootProblem(root string) string {
	root = strings.TrimSpace(root)
	if strings.HasPrefix(root, "/") {
		return "must be a path relative to the repository root"
	}
	for _, seg := range strings.Split(root, "/") {
		if seg == ".." {
			return `must not leave the repository ("..")`
		}
	}
	clean := packages.NormalizeRoot(root)
	if clean == "" {
		return ""
	}
	if first, _, _ := strings.Cut(clean, "/"); strings.EqualFold(first, ".github") {
		return "must not be under .github"
	}
	if err := packages.ValidateName(clean); err != nil {
		_, reason, _ := strings.Cut(err.Error(), ": ")
		return "is not a usable directory: " + reason
	}
	return ""
}

func (d *decoder) approvals(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "approvals", approvalsFields...)
	if !ok {
		return
	}
	if v := f["required"]; v != nil {
		if i, ok := d.r.Int(v, "approvals.required"); ok {
			switch {
			case i < 0:
				d.r.Errorf(v, "approvals.required", "must be 0 or more, got %d", i)
			case i < d.limits.MinApprovals:
				d.r.Errorf(v, "approvals.required", "the server requires at least %d approvals; a repository may ask for more, not fewer", d.limits.MinApprovals)
			default:
				d.cfg.Approvals.Required = i
			}
		}
	}
	if v := f["approvers"]; v != nil {
		if list := d.usersOrTeams(v, "approvals.approvers"); list != nil {
			d.cfg.Approvals.Approvers = list
		}
	}
	if v := f["allowSelfApproval"]; v != nil {
		if b, ok := d.r.Bool(v, "approvals.allowSelfApproval"); ok {
			if b && !d.limits.AllowSelfApproval {
				d.r.Errorf(v, "approvals.allowSelfApproval", "the server does not allow self-approval; remove the setting or set it to false")
			} else {
				d.cfg.Approvals.AllowSelfApproval = b
			}
		}
	}
}

func (d *decoder) functions(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "functions", functionsFields...)
	if !ok {
		return
	}
	v := f["exec"]
	if v == nil {
		return
	}
	exec, ok := d.r.StringMap(v, "functions.exec")
	if !ok {
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		name := k.Value
		p, present := exec[name]
		if !present {
			continue // reported by StringMap
		}
		d.declaredExec[name] = true
		field := strictyaml.Join("functions.exec", name)
		if reason := execNameProblem(name); reason != "" {
			d.r.Errorf(k, field, "%s", reason)
			delete(exec, name)
			continue
		}
		if strings.TrimSpace(p) == "" {
			d.r.Errorf(val, field, "the path of exec function %q is empty", name)
			delete(exec, name)
			continue
		}
		if allowed, pinned := d.limits.execAllowed(name, p); !allowed {
			switch {
			case pinned != "":
				d.r.Errorf(val, field, "the server allows exec function %q only at %s", name, pinned)
			case len(d.limits.ExecAllowlist) == 0:
				d.r.Errorf(k, field, "the server does not allow exec function %q (its exec allowlist is empty)", name)
			default:
				msg := fmt.Sprintf("the server does not allow exec function %q (allowed: %s)", name, strings.Join(d.limits.execNames(), ", "))
				if s := suggest.Best(name, d.limits.execNames()); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				d.r.Errorf(k, field, "%s", msg)
			}
			delete(exec, name)
		}
	}
	d.cfg.Functions.Exec = exec
}

func execNameProblem(name string) string {
	if name == "" || len(name) > 100 {
		return "an exec function name has 1 to 100 characters"
	}
	for _, r := range name {
		if !isAlnum(r) && r != '-' && r != '_' && r != '.' {
			return fmt.Sprintf("exec function name %q: only letters, digits, '-', '_' and '.' are allowed", name)
		}
	}
	return ""
}

func (d *decoder) render(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "render", renderFields...)
	if !ok {
		return
	}
	if v := f["onDraftPush"]; v != nil {
		if s, ok := d.r.Enum(v, "render.onDraftPush", OnDraftPushCommit, OnDraftPushCheck); ok {
			d.cfg.Render.OnDraftPush = s
		}
	}
	if v := f["kpt"]; v != nil {
		if s, ok := d.r.Enum(v, "render.kpt", KptReleases...); ok {
			d.cfg.Render.Kpt = s
		}
	}
	if v := f["pushOnFailure"]; v != nil {
		if b, ok := d.r.Bool(v, "render.pushOnFailure"); ok {
			d.cfg.Render.PushOnFailure = b
		}
	}
	if v := f["mutators"]; v != nil {
		d.cfg.Render.Mutators = kptfile.DecodeFunctions(d.r, v, "render.mutators")
		d.checkExecRefs(v, "render.mutators")
		d.checkImageRefs(v, d.cfg.Render.Mutators, "render.mutators")
	}
	if v := f["validators"]; v != nil {
		d.cfg.Render.Validators = kptfile.DecodeFunctions(d.r, v, "render.validators")
		d.checkExecRefs(v, "render.validators")
		d.checkImageRefs(v, d.cfg.Render.Validators, "render.validators")
	}
}

// checkImageRefs reports image functions every render would refuse: not a
// built-in, or a tag porchbot cannot tie to a catalog release it reproduces
// (builtins.Resolve, as the render resolves them).
func (d *decoder) checkImageRefs(list *yaml.Node, fns []kptfile.Function, field string) {
	if list.Kind != yaml.SequenceNode || len(fns) != len(list.Content) {
		return
	}
	for i, fn := range fns {
		if fn.Image == "" {
			continue
		}
		if _, err := builtins.Resolve(fn.Image, fn.Tag); err != nil {
			at := list.Content[i]
			for j := 0; j+1 < len(at.Content); j += 2 {
				if at.Content[j].Value == "image" {
					at = at.Content[j+1]
					break
				}
			}
			d.r.Errorf(at, strictyaml.Join(strictyaml.Index(field, i), "image"), "function %q: %s", fn.Image, err)
		}
	}
}

// checkExecRefs reports exec functions of a function list that are not
// declared in functions.exec (functions is decoded before render).
func (d *decoder) checkExecRefs(list *yaml.Node, field string) {
	if list.Kind != yaml.SequenceNode {
		return
	}
	for i, it := range list.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(it.Content); j += 2 {
			k, v := it.Content[j], it.Content[j+1]
			if k.Value != "exec" || v.Kind != yaml.ScalarNode || strictyaml.IsNull(v) || v.Value == "" {
				continue
			}
			if d.declaredExec[v.Value] {
				continue // usable, or refused where it is declared
			}
			f := strictyaml.Join(strictyaml.Index(field, i), "exec")
			msg := fmt.Sprintf("exec function %q is not declared in functions.exec", v.Value)
			if !d.allowlisted(v.Value) {
				msg += " (and the server's exec allowlist does not name it)"
			}
			d.r.Errorf(v, f, "%s", msg)
		}
	}
}

func (d *decoder) allowlisted(name string) bool {
	for _, n := range d.limits.execNames() {
		if n == name {
			return true
		}
	}
	return false
}

func (d *decoder) updates(n *yaml.Node) {
	f, ok := d.r.Mapping(n, "updates", updatesFields...)
	if !ok {
		return
	}
	if v := f["labels"]; v != nil {
		if list, nodes, ok := d.r.Strings(v, "updates.labels"); ok {
			labels := make([]string, 0, len(list))
			seen := map[string]bool{}
			for i, l := range list {
				switch {
				case len([]rune(l)) > 50:
					d.r.Errorf(nodes[i], "updates.labels", "label %q is longer than GitHub's 50 characters", l)
				case seen[strings.ToLower(l)]:
					d.r.Errorf(nodes[i], "updates.labels", "label %q is listed twice", l)
				default:
					seen[strings.ToLower(l)] = true
					labels = append(labels, l)
				}
			}
			d.cfg.Updates.Labels = labels
		}
	}
	if v := f["reviewers"]; v != nil {
		if list := d.usersOrTeams(v, "updates.reviewers"); list != nil {
			d.cfg.Updates.Reviewers = list
		}
	}
	if v := f["prConcurrentLimit"]; v != nil {
		if i, ok := d.r.Int(v, "updates.prConcurrentLimit"); ok {
			max := d.limits.MaxPRConcurrentLimit
			switch {
			case i < 0:
				d.r.Errorf(v, "updates.prConcurrentLimit", "must be 0 (no limit) or more, got %d", i)
			case max > 0 && i == 0:
				d.r.Errorf(v, "updates.prConcurrentLimit", "the server allows at most %d update pull requests at once; 0 (no limit) would exceed it", max)
			case max > 0 && i > max:
				d.r.Errorf(v, "updates.prConcurrentLimit", "the server allows at most %d update pull requests at once, got %d", max, i)
			default:
				d.cfg.Updates.PRConcurrentLimit = i
			}
		}
	}
	if v := f["automerge"]; v != nil {
		if b, ok := d.r.Bool(v, "updates.automerge"); ok {
			if b && !d.limits.AllowAutomerge {
				d.r.Errorf(v, "updates.automerge", "the server does not allow automerge; remove the setting or set it to false")
			} else {
				d.cfg.Updates.Automerge = b
			}
		}
	}
	if v := f["strategy"]; v != nil {
		if s, ok := d.r.Enum(v, "updates.strategy", kptfile.UpdateStrategies...); ok {
			d.cfg.Updates.Strategy = s
		}
	}
	if v := f["onConflict"]; v != nil {
		if s, ok := d.r.Enum(v, "updates.onConflict", ConflictUpstream, ConflictLocal, ConflictFail); ok {
			d.cfg.Updates.OnConflict = s
		}
	}
	if v := f["rollouts"]; v != nil {
		d.rollouts(v)
	}
}

// relativeFileProblem checks a repository file path (an injector).
func relativeFileProblem(p string) string {
	switch {
	case strings.HasPrefix(p, "/"):
		return "must be a path relative to the repository root"
	case strings.Contains(p, `\`):
		return "must use / as separator"
	case path.Clean(p) != p:
		return fmt.Sprintf("must be a clean path (%q)", path.Clean(p))
	case p == ".." || strings.HasPrefix(p, "../"):
		return `must not leave the repository ("..")`
	}
	return ""
}
