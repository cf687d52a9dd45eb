package builtins

import (
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// export-terraform's picture of the package: every resource it converts,
// and every resource one of them names (a parent, a billing account, a
// network...), by kind and name. A named resource the package does not hold
// has no object; it is written as a reference (an id or a variable), never
// created.

// tfResource is one resource of export-terraform's picture.
type tfResource struct {
	kind, name string
	fields     tfFields // fields.node is nil for a resource only named
	parent     *tfResource
	// children are the resources naming this one as their parent or in a
	// reference, in the order they were read, once per reading
	children []*tfResource
	refs     map[string]*tfResource // by the kind referenced
	variable *tfVariable            // the variable standing for it, if any
}

// tfVariable is a Terraform variable for a value the resources share.
type tfVariable struct{ name, description, value string }

// tfModel is the picture, and what goes with it: the release, where its
// diagnostics go, and why porchbot refuses the input, once it is known.
type tfModel struct {
	release   tfRelease
	byKey     map[string]*tfResource
	byKind    map[string][]*tfResource // each kind's resources sorted by name
	variables []*tfVariable            // sorted by name
	stderr    io.Writer
	refused   error
}

func newTFModel(release tfRelease, stderr io.Writer) *tfModel {
	return &tfModel{release: release, byKey: map[string]*tfResource{}, stderr: stderr}
}

// resource returns the resource of that kind and name, made if new.
func (m *tfModel) resource(kind, name string) *tfResource {
	key := kind + "/" + name
	r, ok := m.byKey[key]
	if !ok {
		r = &tfResource{kind: kind, name: name}
		m.byKey[key] = r
	}
	return r
}

// read takes in one resource of the package. A second resource of the
// same kind and name replaces the first one's object, and is attached
// again besides the first one's attachments.
func (m *tfModel) read(kind, name string, obj *yaml.Node) {
	r := m.resource(kind, name)
	r.fields = tfFields{node: obj, refused: &m.refused}
	r.refs = map[string]*tfResource{}
	for _, ref := range m.release.references() {
		var target string
		if ref.name != nil {
			target = ref.name(r.fields)
		} else {
			target = strings.TrimSpace(r.fields.str(ref.path...))
		}
		if target == "" {
			continue
		}
		t := m.resource(ref.kind, target)
		t.children = append(t.children, r)
		r.refs[ref.kind] = t
	}
	if kind, name := m.parentOf(r); kind != "" {
		p := m.resource(kind, name)
		p.children = append(p.children, r)
		r.parent = p
	}
}

// tfReference is where a resource names another one: at path, or as name
// reads it.
type tfReference struct {
	kind string
	path []string
	name func(tfFields) string
}

// references are the references a release follows, in its order (a later
// one of a kind replaces an earlier one).
func (v tfRelease) references() []tfReference {
	billing := tfReference{kind: "BillingAccount", path: []string{"spec", "billingAccountRef", "external"}}
	if v == tfV010 {
		return []tfReference{billing}
	}
	return []tfReference{
		billing,
		{kind: "BigQueryDataset", path: []string{"spec", "destination", "bigQueryDatasetRef", "name"}},
		{kind: "PubSubTopic", path: []string{"spec", "destination", "pubSubTopicRef", "name"}},
		{kind: "StorageBucket", path: []string{"spec", "destination", "storageBucketRef", "name"}},
		{kind: "ComputeNetwork", path: []string{"spec", "networkRef", "name"}},
		{kind: "ComputeRouter", path: []string{"spec", "routerRef", "name"}},
		{kind: "ComputeAddress", name: firstNamed("natIps")},
		{kind: "ComputeAddress", name: firstNamed("reservedPeeringRanges")},
		{kind: "LoggingLogBucket", name: func(f tfFields) string {
			// the bucket's name is the external reference's last segment
			ext, ok := f.scalar(yaml.NodeTagString, "spec", "destination", "loggingLogBucketRef", "external")
			if !ok {
				return ""
			}
			return ext[strings.LastIndex(ext, "/")+1:]
		}},
	}
}

// firstNamed reads the name of the first entry of spec.<field>, a list of
// references.
func firstNamed(field string) func(tfFields) string {
	return func(f tfFields) string {
		n, _, err := f.walk("spec", field)
		if err != nil || n == nil || n.Kind != yaml.SequenceNode {
			return ""
		}
		var refs []struct {
			Name string `yaml:"name"`
		}
		if n.Decode(&refs) != nil || len(refs) == 0 {
			return ""
		}
		return refs[0].Name
	}
}

// parentOf finds the parent a resource names: the first of its folder,
// organization, project annotation and resourceRef that is set (a
// resourceRef's kind is the one written beside it; none, no parent).
func (m *tfModel) parentOf(r *tfResource) (kind, name string) {
	project := []string{yaml.MetadataField, yaml.AnnotationsField, projectIDAnnotation}
	if m.release == tfV010 {
		// v0.1.0 looked for a name under the annotation, which never is
		project = append(project, "name")
	}
	for _, p := range []struct {
		kind string
		path []string
	}{
		{"Folder", []string{"spec", "folderRef", "name"}},
		{"Folder", []string{"spec", "folderRef", "external"}},
		{"Organization", []string{"spec", "organizationRef", "external"}},
		{"Project", project},
		{"", []string{"spec", "resourceRef", "external"}},
		{"", []string{"spec", "resourceRef", "name"}},
	} {
		name := r.fields.str(p.path...)
		if name == "" {
			continue
		}
		kind := p.kind
		if kind == "" {
			kind = r.fields.str("spec", "resourceRef", "kind")
		}
		return kind, strings.TrimSpace(name)
	}
	return "", ""
}

// group sorts the resources by kind and name, once all are read, and
// makes the variables: the organization's id and the billing account's,
// when the package names exactly one.
func (m *tfModel) group() {
	keys := make([]string, 0, len(m.byKey))
	for k := range m.byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	m.byKind = map[string][]*tfResource{}
	for _, k := range keys {
		r := m.byKey[k]
		m.byKind[r.kind] = append(m.byKind[r.kind], r)
	}
	for _, v := range []struct{ kind, name, description string }{
		{"BillingAccount", "billing_account", "The ID of the billing account to associate projects with"},
		{"Organization", "org_id", "The organization id for the associated resources"},
	} {
		if of := m.byKind[v.kind]; len(of) == 1 {
			of[0].variable = &tfVariable{name: v.name, description: v.description, value: of[0].name}
			m.variables = append(m.variables, of[0].variable)
		}
	}
}

// created reports whether the package holds the resource, which is then
// created rather than referenced.
func (r *tfResource) created() bool { return r.fields.node != nil }

var tfNameUnsafe = regexp.MustCompile(`[^a-zA-Z0-9_-]`)

// tfName is the resource's Terraform name: its own name made safe, or for
// a resource only named, its kind in lower case, numbered among the
// resources of its kind when there are several.
func (m *tfModel) tfName(r *tfResource) string {
	if r.created() && r.name != "" {
		return tfNameUnsafe.ReplaceAllString(r.name, "-")
	}
	of := m.byKind[r.kind]
	if len(of) < 2 {
		return strings.ToLower(r.kind)
	}
	for i, o := range of {
		if o.name == r.name {
			return fmt.Sprintf("%s-%d", strings.ToLower(r.kind), i+1)
		}
	}
	return ""
}

// tfID is how a resource is referred to in HCL. The release writes every
// resource of the package as a google_folder; a resource only named is its
// variable or its id, quoted with its kind's prefix ("organizations/",
// else "folders/") when prefixed.
func (m *tfModel) tfID(r *tfResource, prefixed bool) string {
	if r.created() {
		return "google_folder." + m.tfName(r) + ".name"
	}
	value := r.name
	if r.variable != nil {
		value = "${var." + r.variable.name + "}"
	}
	switch {
	case !prefixed && r.variable != nil:
		return "var." + r.variable.name
	case !prefixed:
		return `"` + r.name + `"`
	case r.kind == "Organization":
		return `"organizations/` + value + `"`
	default:
		return `"folders/` + value + `"`
	}
}

// organization is the organization a project or log sink belongs to: its
// parent if that is one, else the first the package names (none: the
// release says so on stderr, and fails). ok is false for a resource
// without parent, where the release crashes looking.
func (m *tfModel) organization(r *tfResource) (org *tfResource, ok bool) {
	if r.parent == nil {
		return nil, false
	}
	if r.parent.kind == "Organization" {
		return r.parent, true
	}
	if orgs := m.byKind["Organization"]; len(orgs) > 0 {
		return orgs[0], true
	}
	fmt.Fprintf(m.stderr, "Failed to fetch organization for %s/%s", r.kind, r.name)
	return nil, true
}

// childrenOf are r's children of one kind, in order.
func childrenOf(r *tfResource, kind string) []*tfResource {
	var out []*tfResource
	for _, c := range r.children {
		if c.kind == kind {
			out = append(out, c)
		}
	}
	return out
}

// displayName is spec.displayName, else spec.name, else metadata.name.
func (r *tfResource) displayName() string {
	for _, p := range [][]string{{"spec", "displayName"}, {"spec", "name"}} {
		if s, ok := r.fields.scalar(yaml.NodeTagString, p...); ok {
			return s
		}
	}
	return r.fields.str(yaml.MetadataField, yaml.NameField)
}
