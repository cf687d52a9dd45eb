package builtins

import (
	"bytes"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/hasher"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// A resource list as kpt hands it to the second function of a pipeline: the
// first function's run left the file's header comment on the item itself
// (kpt's comment copy puts a document's head comment there).
const headerCommentList = `apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
# The web tier.
# Owned by the checkout team.
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: web # the web tier
    labels:
      a: b
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
  data:
    k: v
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data:
    c: d
`

// Regression: run as an exec function (`porchbot fn set-labels`), a
// built-in used to hand the item's head comment to its first key (the
// runner's re-parse of each item); kpt then copied the comment back onto
// the item as well, and the header came out twice. The comment must stay
// where it was, as with any kyaml function.
func TestExecKeepsItemHeadComment(t *testing.T) {
	for _, name := range []string{"set-labels", "set-annotations", "set-namespace", "starlark"} {
		t.Run(name, func(t *testing.T) {
			in := headerCommentList
			switch name {
			case "set-namespace":
				in = strings.Replace(in, "    c: d\n", "    namespace: prod\n", 1)
			case "starlark":
				in = strings.Replace(in, "    c: d\n", "    source: |\n      for r in ctx.resource_list[\"items\"]:\n        r[\"data\"][\"x\"] = \"y\"\n", 1)
			}
			spec, _ := Lookup(name)
			var out bytes.Buffer
			rw := &kio.ByteReadWriter{Reader: strings.NewReader(in), Writer: &out, KeepReaderAnnotations: true}
			if err := framework.Execute(spec.New(), rw); err != nil {
				t.Fatal(err)
			}
			text := out.String()
			items, err := (&kio.ByteReader{Reader: &out}).Read()
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 {
				t.Fatalf("%d items", len(items))
			}
			n := items[0].YNode()
			if want := "# The web tier.\n# Owned by the checkout team."; n.HeadComment != want {
				t.Errorf("item head comment %q, want %q\n%s", n.HeadComment, want, text)
			}
			if c := n.Content[0].HeadComment; c != "" {
				t.Errorf("first key got head comment %q\n%s", c, text)
			}
			if strings.Count(text, "The web tier.") != 1 {
				t.Errorf("header comment not exactly once:\n%s", text)
			}
		})
	}
}

func TestReparseKeepsTopComments(t *testing.T) {
	// a mapping with comments of its own, as decoded from a ResourceList
	// item, and a document with a head comment, as read from a file
	item := yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode, HeadComment: "# head", LineComment: "# line", FootComment: "# foot",
		Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "a"}, {Kind: yaml.ScalarNode, Value: "1", LineComment: "# one"}}})
	doc := yaml.MustParse("# file header\n\napiVersion: v1 # v\nkind: A\n")
	for _, rn := range []*yaml.RNode{item, doc} {
		before := rn.MustString()
		out := reparse(rn)
		if out.YNode() == rn.YNode() {
			t.Error("not a copy")
		}
		if rn.MustString() != before {
			t.Errorf("input modified:\n%s", rn.MustString())
		}
		if got := out.MustString(); got != before {
			t.Errorf("reparse:\n%s\nwant\n%s", got, before)
		}
		if (out.Document() == out.YNode()) != (rn.Document() == rn.YNode()) {
			t.Error("document wrapping changed")
		}
	}
	got := reparse(item).YNode()
	if got.HeadComment != "# head" || got.LineComment != "# line" || got.FootComment != "# foot" {
		t.Errorf("comments moved off the node: %q %q %q", got.HeadComment, got.LineComment, got.FootComment)
	}
	if got.Content[0].HeadComment != "" || got.Content[1].LineComment != "# one" {
		t.Errorf("field comments: key %q, value %q", got.Content[0].HeadComment, got.Content[1].LineComment)
	}
	if d := reparse(doc).Document(); d.HeadComment != "# file header" {
		t.Errorf("document head comment %q", d.HeadComment)
	}
}

// newResources must take what NewResMapFromRNodeSlice takes and fail where
// it fails, with the same message.
func TestNewResourcesMatchesResMap(t *testing.T) {
	parse := func(docs ...string) []*yaml.RNode {
		var out []*yaml.RNode
		for _, d := range docs {
			out = append(out, yaml.MustParse(d))
		}
		return out
	}
	cmA := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	for name, items := range map[string][]*yaml.RNode{
		"distinct":            parse(cmA, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n"),
		"duplicate":           parse(cmA, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: a\n", cmA),
		"default namespace":   parse(cmA, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n"),
		"other namespace":     parse(cmA, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: x\n"),
		"cluster scoped":      parse("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  namespace: x\n"),
		"other version":       parse(cmA, "apiVersion: v2\nkind: ConfigMap\nmetadata:\n  name: a\n"),
		"local config":        parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n"),
		"list without name":   parse("apiVersion: v1\nkind: ConfigMapList\nmetadata: {}\n"),
		"missing name":        parse(cmA, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n"),
		"missing kind":        parse("apiVersion: v1\nmetadata:\n  name: a\n"),
		"empty name":          parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"\"\n"),
		"null kind":           parse("apiVersion: v1\nkind: ~\nmetadata:\n  name: a\n"),
		"map kind":            parse("apiVersion: v1\nkind: {a: b}\nmetadata:\n  name: a\n"),
		"no metadata":         parse("apiVersion: v1\nkind: ConfigMap\n"),
		"scalar metadata":     parse("apiVersion: v1\nkind: ConfigMap\nmetadata: x\n"),
		"empty item skipped":  append(parse(cmA), yaml.NewRNode(&yaml.Node{Kind: yaml.MappingNode})),
		"name is not string":  parse("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: 12\n", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"12\"\n"),
		"nothing":             nil,
		"kind and name only":  parse("kind: A\nmetadata:\n  name: a\n", "kind: A\nmetadata:\n  name: a\n"),
		"different groups":    parse("apiVersion: a.io/v1\nkind: A\nmetadata:\n  name: a\n", "apiVersion: b.io/v1\nkind: A\nmetadata:\n  name: a\n"),
		"namespaced kind dup": parse("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: x\n", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: x\n"),
	} {
		t.Run(name, func(t *testing.T) {
			rf := resource.NewFactory(&hasher.Hasher{})
			rf.IncludeLocalConfigs = true
			m, wantErr := resmap.NewFactory(rf).NewResMapFromRNodeSlice(items)
			rs, err := newResources(items)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
				t.Fatalf("error %v, ResMap's %v", err, wantErr)
			}
			if err != nil {
				return
			}
			if len(rs) != m.Size() {
				t.Fatalf("%d resources, ResMap %d", len(rs), m.Size())
			}
			for i, r := range m.Resources() {
				if r.MustString() != rs[i].MustString() {
					t.Errorf("resource %d: %s, ResMap %s", i, rs[i].MustString(), r.MustString())
				}
			}
		})
	}
}

// fileAnnotations must read what kioutil.GetFileAnnotations reads.
func TestFileAnnotationsMatchesKioutil(t *testing.T) {
	for _, s := range []string{
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: p.yaml\n    internal.config.kubernetes.io/index: '2'\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/path: legacy.yaml\n    config.kubernetes.io/index: 3\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    config.kubernetes.io/path: legacy.yaml\n    internal.config.kubernetes.io/path: new.yaml\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: first.yaml\n    internal.config.kubernetes.io/path: second.yaml\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: ~\n    config.kubernetes.io/path: l.yaml\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations: [x]\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations: {}\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: {a: b}\n",
		"apiVersion: v1\nkind: A\nmetadata: x\n",
		"apiVersion: v1\nkind: A\nmetadata:\n  name: a\n  annotations:\n    internal.config.kubernetes.io/path: a.yaml\nmetadata:\n  annotations:\n    internal.config.kubernetes.io/path: b.yaml\n",
		"- a\n- b\n",
	} {
		rn := yaml.MustParse(s)
		wantPath, wantIndex, _ := kioutil.GetFileAnnotations(rn)
		path, index := fileAnnotations(rn)
		if path != wantPath || index != wantIndex {
			t.Errorf("%s: got %q %q, kioutil %q %q", s, path, index, wantPath, wantIndex)
		}
	}
}

// A plain scalar made in process (no tag) has the tag the YAML decoder
// gives it when the next function reads it back.
func TestShortTagOfUntaggedScalars(t *testing.T) {
	for _, v := range []string{"", "~", "null", "x", "true", "False", "yes", "on", "12", "-3", "012", "0o17", "0x1F", "1_000",
		"1.5", "1e3", ".inf", "-.Inf", ".nan", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "<<", "0b101", "+1", "1.2.3", "v1"} {
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
		s, err := yaml.String(&yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: "k"}, n}})
		if err != nil {
			t.Fatal(err)
		}
		back := yaml.MustParse(s).YNode().Content[1]
		if got := shortTag(n); got != shortTag(back) {
			t.Errorf("%q: %s, read back %s", v, got, shortTag(back))
		}
	}
}
