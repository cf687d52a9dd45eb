package config

import (
	"fmt"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/strictyaml"
)

// A configuration may extend presets, as Renovate's and policy-bot's do:
//
//	extends:
//	  - org                     # the organisation's .github repository: porchbot.yaml
//	  - org:edge                # the same repository: porchbot/edge.yaml
//	  - porchbot:two-approvals  # a preset built into porchbot (presets.go)
//
// The presets are read first, in the order listed (each after the presets
// it extends itself), then the file: a key a later file sets replaces the
// earlier value (a list as a whole, a mapping key by key). Every file of
// the chain is a RepositoryConfig of its own, checked as strictly and
// against the same server limits; only the repository's own file may set
// variants. An organisation preset is read from the repository's own
// owner's .github repository only, at most maxExtendsDepth deep, each at
// most once.

// OrgRepository is the repository organisation presets are read from.
const OrgRepository = ".github"

// maxExtendsDepth bounds the chain; maxExtends the presets one file names.
const (
	maxExtendsDepth = 4
	maxExtends      = 10
)

// PresetReader reads an organisation preset: name "" is the
// organisation's porchbot.yaml, any other name porchbot/<name>.yaml, both
// in its .github repository. It returns the file's name for problems
// ("acme/.github: porchbot.yaml") and whether the file exists; an error is
// the repository that could not be read.
type PresetReader func(name string) (filename string, data []byte, found bool, err error)

// Provenance says where each value of a configuration came from: a field
// path ("approvals.required", "updates.labels") and the file and line that
// set it last. Fields no file sets are the defaults.
type Provenance map[string]string

// ParseChain is Parse for a file that may extend presets: org reads the
// organisation's (nil: an "org" preset is a problem, as where nothing can
// read it). It returns the configuration, where each value came from, and
// every problem of every file of the chain.
func ParseChain(filename string, data []byte, limits ServerLimits, org PresetReader) (*Config, Provenance, error) {
	c := &chain{limits: limits, org: org, cfg: DefaultFor(limits), declaredExec: map[string]bool{},
		prov: Provenance{}, seen: map[string]bool{}}
	c.layer(filename, data, 0, true)
	if len(c.problems) > 0 {
		return nil, nil, &ValidationError{Problems: c.problems}
	}
	return c.cfg, c.prov, nil
}

type chain struct {
	limits       ServerLimits
	org          PresetReader
	cfg          *Config
	declaredExec map[string]bool
	prov         Provenance
	seen         map[string]bool
	problems     []Problem
}

// layer reads one file of the chain: its presets first, then itself. own
// is the repository's own file.
func (c *chain) layer(filename string, data []byte, depth int, own bool) {
	doc, err := strictyaml.Parse(filename, data, Limits)
	if err != nil {
		c.addErr(err)
		return
	}
	r := strictyaml.NewReader(filename)
	root := strictyaml.Root(doc)
	if root == nil {
		r.Report(nil, "", fmt.Sprintf("the file is empty: delete it to use the defaults, or start it with apiVersion: %s and kind: %s", APIVersion, Kind))
		c.addErr(r.Err())
		return
	}
	if root.Kind == yaml.MappingNode {
		if ext := mappingValue(root, "extends"); ext != nil {
			c.extends(r, ext, depth)
		}
		if !own {
			if v := mappingValue(root, "variants"); v != nil {
				r.Errorf(v, "variants", "a preset cannot set variants: only the repository's own file can")
			}
		}
	}
	d := &decoder{r: r, limits: c.limits, cfg: c.cfg, declaredExec: c.declaredExec}
	d.top(root)
	c.addErr(r.Err())
	if r.Count() == 0 {
		provenanceOf(root, filename, "", c.prov)
	}
}

// extends reads the presets an extends list names, in order.
func (c *chain) extends(r *strictyaml.Reader, n *yaml.Node, depth int) {
	names, nodes, ok := r.Strings(n, "extends")
	if !ok {
		return
	}
	if len(names) > maxExtends {
		r.Errorf(n, "extends", "at most %d presets, got %d", maxExtends, len(names))
		return
	}
	for i, name := range names {
		field := strictyaml.Index("extends", i)
		if depth+1 > maxExtendsDepth {
			r.Errorf(nodes[i], field, "presets extend presets more than %d deep", maxExtendsDepth)
			continue
		}
		if c.seen[name] {
			r.Errorf(nodes[i], field, "%q is already part of this configuration (a preset named twice, or a cycle)", name)
			continue
		}
		c.seen[name] = true
		filename, data, problem := c.preset(name)
		if problem != "" {
			r.Errorf(nodes[i], field, "%s", problem)
			continue
		}
		c.layer(filename, data, depth+1, false)
	}
}

// preset reads one named preset: its file name and content, or why not.
func (c *chain) preset(name string) (string, []byte, string) {
	if p, ok := strings.CutPrefix(name, "porchbot:"); ok {
		text, found := builtinPresets[p]
		if !found {
			return "", nil, fmt.Sprintf("no preset %q is built into porchbot (there are: %s)", name, strings.Join(BuiltinPresetNames(), ", "))
		}
		return "preset " + name, []byte(text), ""
	}
	var orgName string
	switch {
	case name == "org":
	case strings.HasPrefix(name, "org:"):
		orgName = strings.TrimPrefix(name, "org:")
		if !presetNameOK(orgName) {
			return "", nil, fmt.Sprintf("%q: an organisation preset's name is letters, digits, '-' and '_' (it is the file porchbot/<name>.yaml)", name)
		}
	default:
		return "", nil, fmt.Sprintf("%q is no preset: write org, org:<name> (porchbot/<name>.yaml of the organisation's %s repository) or porchbot:<name>", name, OrgRepository)
	}
	if c.org == nil {
		return "", nil, fmt.Sprintf("%q is read from the organisation's %s repository, which cannot be read here", name, OrgRepository)
	}
	filename, data, found, err := c.org(orgName)
	if err != nil {
		return "", nil, fmt.Sprintf("%q: %v", name, err)
	}
	if !found {
		return "", nil, fmt.Sprintf("%q: %s has no such file", name, filename)
	}
	return filename, data, ""
}

func presetNameOK(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func (c *chain) addErr(err error) {
	if err == nil {
		return
	}
	if v, ok := err.(*ValidationError); ok {
		c.problems = append(c.problems, v.Problems...)
		return
	}
	c.problems = append(c.problems, Problem{Message: err.Error()})
}

// mappingValue is the value of key in mapping m (nil when absent).
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// provenanceOf records, for every scalar and list under n, the file and
// line that set it (mappings are walked into; apiVersion, kind and extends
// are not values).
func provenanceOf(n *yaml.Node, filename, path string, into Provenance) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if path == "" && (k == "apiVersion" || k == "kind" || k == "extends") {
				continue
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			provenanceOf(n.Content[i+1], filename, p, into)
		}
	default:
		if path != "" && n.Tag != "!!null" {
			into[path] = fmt.Sprintf("%s:%d", filename, n.Line)
		}
	}
}
