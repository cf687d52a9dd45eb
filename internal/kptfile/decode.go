package kptfile

import (
	"path"
	"slices"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// Known fields, in kpt's order (also the order edits insert fields in).
var (
	topFields          = []string{"apiVersion", "kind", "metadata", "upstream", "upstreamLock", "info", "pipeline", "inventory", "status"}
	metadataFields     = []string{"name", "namespace", "labels", "annotations"}
	upstreamFields     = []string{"type", "git", "updateStrategy"}
	gitFields          = []string{"repo", "directory", "ref"}
	upstreamLockFields = []string{"type", "git"}
	gitLockFields      = []string{"repo", "directory", "ref", "commit"}
	infoFields         = []string{"site", "emails", "license", "licenseFile", "description", "keywords", "man", "readinessGates"}
	gateFields         = []string{"conditionType"}
	pipelineFields     = []string{"mutators", "validators"}
	functionFields     = []string{"image", "exec", "configPath", "configMap", "name", "tag", "selectors", "exclude"}
	selectorFields     = []string{"apiVersion", "kind", "name", "namespace", "labels", "annotations"}
	inventoryFields    = []string{"namespace", "name", "inventoryID", "labels", "annotations"}
	statusFields       = []string{"conditions", "renderStatus"}
	conditionFields    = []string{"type", "status", "reason", "message"}
)

// decode reads a Kptfile's top-level mapping, recording problems in r.
func decode(r *strictyaml.Reader, root *yaml.Node) Kptfile {
	var k Kptfile
	f, ok := r.Mapping(root, "", topFields...)
	if !ok {
		return k
	}
	r.Require(root, "", f, "apiVersion", "kind")
	if n := f["apiVersion"]; n != nil {
		if s, ok := r.String(n, "apiVersion"); ok {
			k.APIVersion = s
			switch {
			case s == APIVersion:
			case s == oldAPIGroup+"/v1alpha1" || s == oldAPIGroup+"/v1alpha2":
				r.Errorf(n, "apiVersion", "%q is an old version of the Kptfile schema; porchbot reads %s. "+
					"Upgrade the package: %s, then commit the result", s, APIVersion, UpgradeCommand)
			default:
				r.Errorf(n, "apiVersion", "must be %s, got %q (porchbot reads kpt v1 Kptfiles)", APIVersion, s)
			}
		}
	}
	if n := f["kind"]; n != nil {
		if s, ok := r.String(n, "kind"); ok {
			k.Kind = s
			if s != Kind {
				r.Errorf(n, "kind", "must be %s, got %q", Kind, s)
			}
		}
	}
	if n := f["metadata"]; n != nil {
		k.Metadata = decodeMetadata(r, n)
	}
	if n := f["upstream"]; n != nil {
		k.Upstream = decodeUpstream(r, n)
	}
	if n := f["upstreamLock"]; n != nil {
		k.UpstreamLock = decodeUpstreamLock(r, n)
	}
	if n := f["info"]; n != nil {
		k.Info = decodeInfo(r, n)
	}
	if n := f["pipeline"]; n != nil {
		k.Pipeline = DecodePipeline(r, n, "pipeline")
	}
	if n := f["inventory"]; n != nil {
		k.Inventory = decodeInventory(r, n)
	}
	if n := f["status"]; n != nil {
		k.Status = decodeStatus(r, n)
	}
	return k
}

func decodeMetadata(r *strictyaml.Reader, n *yaml.Node) Metadata {
	var m Metadata
	f, ok := r.Mapping(n, "metadata", metadataFields...)
	if !ok {
		return m
	}
	str(r, f, "metadata", "name", &m.Name)
	str(r, f, "metadata", "namespace", &m.Namespace)
	strMap(r, f, "metadata", "labels", &m.Labels)
	strMap(r, f, "metadata", "annotations", &m.Annotations)
	return m
}

func decodeUpstream(r *strictyaml.Reader, n *yaml.Node) *Upstream {
	u := &Upstream{}
	f, ok := r.Mapping(n, "upstream", upstreamFields...)
	if !ok {
		return u
	}
	if t := f["type"]; t != nil {
		u.Type, _ = r.Enum(t, "upstream.type", OriginGit)
	}
	if g := f["git"]; g != nil {
		u.Git = &Git{}
		if gf, ok := r.Mapping(g, "upstream.git", gitFields...); ok {
			str(r, gf, "upstream.git", "repo", &u.Git.Repo)
			str(r, gf, "upstream.git", "directory", &u.Git.Directory)
			str(r, gf, "upstream.git", "ref", &u.Git.Ref)
		}
	} else if u.Type == OriginGit {
		r.Errorf(n, "upstream", `missing required field "git" for type git`)
	}
	if s := f["updateStrategy"]; s != nil {
		u.UpdateStrategy, _ = r.Enum(s, "upstream.updateStrategy", UpdateStrategies...)
	}
	return u
}

func decodeUpstreamLock(r *strictyaml.Reader, n *yaml.Node) *UpstreamLock {
	l := &UpstreamLock{}
	f, ok := r.Mapping(n, "upstreamLock", upstreamLockFields...)
	if !ok {
		return l
	}
	if t := f["type"]; t != nil {
		l.Type, _ = r.Enum(t, "upstreamLock.type", OriginGit)
	}
	if g := f["git"]; g != nil {
		l.Git = &GitLock{}
		if gf, ok := r.Mapping(g, "upstreamLock.git", gitLockFields...); ok {
			str(r, gf, "upstreamLock.git", "repo", &l.Git.Repo)
			str(r, gf, "upstreamLock.git", "directory", &l.Git.Directory)
			str(r, gf, "upstreamLock.git", "ref", &l.Git.Ref)
			str(r, gf, "upstreamLock.git", "commit", &l.Git.Commit)
		}
	} else if l.Type == OriginGit {
		r.Errorf(n, "upstreamLock", `missing required field "git" for type git`)
	}
	return l
}

func decodeInfo(r *strictyaml.Reader, n *yaml.Node) *Info {
	in := &Info{}
	f, ok := r.Mapping(n, "info", infoFields...)
	if !ok {
		return in
	}
	str(r, f, "info", "site", &in.Site)
	strList(r, f, "info", "emails", &in.Emails)
	str(r, f, "info", "license", &in.License)
	str(r, f, "info", "licenseFile", &in.LicenseFile)
	str(r, f, "info", "description", &in.Description)
	strList(r, f, "info", "keywords", &in.Keywords)
	str(r, f, "info", "man", &in.Man)
	if g := f["readinessGates"]; g != nil {
		items, _ := r.Sequence(g, "info.readinessGates")
		seen := map[string]bool{}
		for i, it := range items {
			field := strictyaml.Index("info.readinessGates", i)
			gf, ok := r.Mapping(it, field, gateFields...)
			if !ok {
				continue
			}
			if !r.Require(it, field, gf, "conditionType") {
				continue
			}
			ct, ok := r.NonEmptyString(gf["conditionType"], field+".conditionType")
			if !ok {
				continue
			}
			if seen[ct] {
				r.Errorf(gf["conditionType"], field+".conditionType", "readiness gate %q is listed twice", ct)
				continue
			}
			seen[ct] = true
			in.ReadinessGates = append(in.ReadinessGates, ReadinessGate{ConditionType: ct})
		}
	}
	return in
}

// DecodePipeline reads a kpt pipeline ({mutators, validators}) at field,
// recording problems in r. The repository configuration uses it for its
// render functions and variant pipelines.
func DecodePipeline(r *strictyaml.Reader, n *yaml.Node, field string) *Pipeline {
	p := &Pipeline{}
	f, ok := r.Mapping(n, field, pipelineFields...)
	if !ok {
		return p
	}
	if m := f["mutators"]; m != nil {
		p.Mutators = DecodeFunctions(r, m, strictyaml.Join(field, "mutators"))
	}
	if v := f["validators"]; v != nil {
		p.Validators = DecodeFunctions(r, v, strictyaml.Join(field, "validators"))
	}
	return p
}

// DecodeFunctions reads a list of kpt functions at field.
func DecodeFunctions(r *strictyaml.Reader, n *yaml.Node, field string) []Function {
	items, ok := r.Sequence(n, field)
	if !ok {
		return nil
	}
	out := make([]Function, 0, len(items))
	for i, it := range items {
		if fn, ok := DecodeFunction(r, it, strictyaml.Index(field, i)); ok {
			out = append(out, fn)
		}
	}
	return out
}

// DecodeFunction reads one kpt function at field with kpt's rules: exactly
// one of image and exec; not both configPath and configMap; configPath a
// relative path inside the package. An empty selector is kept, as kpt
// keeps it.
func DecodeFunction(r *strictyaml.Reader, n *yaml.Node, field string) (Function, bool) {
	var fn Function
	f, ok := r.Mapping(n, field, functionFields...)
	if !ok {
		return fn, false
	}
	before := r.Count()
	str(r, f, field, "image", &fn.Image)
	str(r, f, field, "exec", &fn.Exec)
	str(r, f, field, "configPath", &fn.ConfigPath)
	strMap(r, f, field, "configMap", &fn.ConfigMap)
	str(r, f, field, "name", &fn.Name)
	str(r, f, field, "tag", &fn.Tag)
	switch {
	case fn.Image == "" && fn.Exec == "":
		if f["image"] == nil && f["exec"] == nil {
			r.Errorf(n, field, `a function needs "image" or "exec"`)
		} else {
			r.Errorf(n, field, `"image" or "exec" must not be empty`)
		}
	case fn.Image != "" && fn.Exec != "":
		r.Errorf(f["exec"], field, `a function has "image" or "exec", not both`)
	case fn.Image != "" && strings.ContainsAny(fn.Image, " \t\r\n"):
		r.Errorf(f["image"], strictyaml.Join(field, "image"), "image %q contains whitespace", fn.Image)
	}
	if fn.Tag != "" && fn.Image == "" {
		r.Errorf(f["tag"], strictyaml.Join(field, "tag"), `"tag" applies to "image" functions only`)
	}
	if f["configPath"] != nil && f["configMap"] != nil {
		r.Errorf(f["configMap"], field, `a function has "configPath" or "configMap", not both`)
	}
	if p := fn.ConfigPath; p != "" {
		clean := path.Clean(p)
		if path.IsAbs(p) || strings.Contains(p, `\`) || clean == ".." || strings.HasPrefix(clean, "../") {
			r.Errorf(f["configPath"], strictyaml.Join(field, "configPath"),
				"%q must be a slash-separated path inside the package", p)
		}
	}
	fn.Selectors = decodeSelectors(r, f["selectors"], strictyaml.Join(field, "selectors"))
	fn.Exclude = decodeSelectors(r, f["exclude"], strictyaml.Join(field, "exclude"))
	return fn, r.Count() == before
}

func decodeSelectors(r *strictyaml.Reader, n *yaml.Node, field string) []Selector {
	if n == nil {
		return nil
	}
	items, ok := r.Sequence(n, field)
	if !ok {
		return nil
	}
	out := make([]Selector, 0, len(items))
	for i, it := range items {
		sf := strictyaml.Index(field, i)
		f, ok := r.Mapping(it, sf, selectorFields...)
		if !ok {
			continue
		}
		var s Selector
		str(r, f, sf, "apiVersion", &s.APIVersion)
		str(r, f, sf, "kind", &s.Kind)
		str(r, f, sf, "name", &s.Name)
		str(r, f, sf, "namespace", &s.Namespace)
		strMap(r, f, sf, "labels", &s.Labels)
		strMap(r, f, sf, "annotations", &s.Annotations)
		out = append(out, s)
	}
	return out
}

func decodeInventory(r *strictyaml.Reader, n *yaml.Node) *Inventory {
	inv := &Inventory{}
	f, ok := r.Mapping(n, "inventory", inventoryFields...)
	if !ok {
		return inv
	}
	str(r, f, "inventory", "namespace", &inv.Namespace)
	str(r, f, "inventory", "name", &inv.Name)
	str(r, f, "inventory", "inventoryID", &inv.InventoryID)
	strMap(r, f, "inventory", "labels", &inv.Labels)
	strMap(r, f, "inventory", "annotations", &inv.Annotations)
	return inv
}

func decodeStatus(r *strictyaml.Reader, n *yaml.Node) *Status {
	st := &Status{}
	f, ok := r.Mapping(n, "status", statusFields...)
	if !ok {
		return st
	}
	if rs := f["renderStatus"]; rs != nil {
		if rs.Kind != yaml.MappingNode {
			r.Errorf(rs, "status.renderStatus", "must be a mapping, got %s", strictyaml.Describe(rs))
		}
		st.HasRenderStatus = true
	}
	c := f["conditions"]
	if c == nil {
		return st
	}
	items, _ := r.Sequence(c, "status.conditions")
	seen := map[string]bool{}
	for i, it := range items {
		field := strictyaml.Index("status.conditions", i)
		cf, ok := r.Mapping(it, field, conditionFields...)
		if !ok {
			continue
		}
		if !r.Require(it, field, cf, "type", "status") {
			continue
		}
		var cond Condition
		var okType, okStatus bool
		cond.Type, okType = r.NonEmptyString(cf["type"], field+".type")
		cond.Status, okStatus = r.Enum(cf["status"], field+".status", ConditionTrue, ConditionFalse, ConditionUnknown)
		str(r, cf, field, "reason", &cond.Reason)
		str(r, cf, field, "message", &cond.Message)
		if okType && seen[cond.Type] {
			r.Errorf(cf["type"], field+".type", "condition %q is listed twice", cond.Type)
			continue
		}
		seen[cond.Type] = okType
		if okType && okStatus {
			st.Conditions = append(st.Conditions, cond)
		}
	}
	return st
}

func str(r *strictyaml.Reader, f map[string]*yaml.Node, parent, key string, dst *string) {
	if n := f[key]; n != nil {
		if s, ok := r.String(n, strictyaml.Join(parent, key)); ok {
			*dst = s
		}
	}
}

func strList(r *strictyaml.Reader, f map[string]*yaml.Node, parent, key string, dst *[]string) {
	if n := f[key]; n != nil {
		if l, _, ok := r.Strings(n, strictyaml.Join(parent, key)); ok {
			*dst = slices.Clip(l)
		}
	}
}

func strMap(r *strictyaml.Reader, f map[string]*yaml.Node, parent, key string, dst *map[string]string) {
	if n := f[key]; n != nil {
		if m, ok := r.StringMap(n, strictyaml.Join(parent, key)); ok && len(m) > 0 {
			*dst = m
		}
	}
}
