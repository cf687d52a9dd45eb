package builtins

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// TestDirectAnnotationsAsKustomize runs set-annotations both ways on
// generated resources (workload kinds of every field spec and others, with
// metadata, annotations, templates and job templates present, absent,
// empty, null, scalar, in sequences, aliased, with duplicate keys and
// quoted values) and generated annotations (values YAML 1.1 reads as
// booleans, numbers or null among them): the direct path must leave the
// same bytes, the same results and the same errors as kustomize's filter,
// and must take most of the resources.
func TestDirectAnnotationsAsKustomize(t *testing.T) {
	rnd := rand.New(rand.NewSource(7))
	direct, total := 0, 0
	for i := 0; i < 400; i++ {
		doc := genAnnotatable(rnd, i)
		annos := genAnnotations(rnd)
		run := func(commonOnly bool) (string, string, error) {
			items, err := (&kio.ByteReader{Reader: strings.NewReader(doc), OmitReaderAnnotations: true}).Read()
			if err != nil {
				t.Fatalf("case %d: %v\n%s", i, err, doc)
			}
			c := setAnnotationsConfig{Annotations: annos, AdditionalAnnotationFields: commonAnnotationFieldSpecs, commonOnly: commonOnly}
			out, res, err := c.run(items)
			if err != nil {
				return "", "", err
			}
			var b strings.Builder
			if err := (kio.ByteWriter{Writer: &b}).Write(out); err != nil {
				t.Fatal(err)
			}
			rs, err := res.results()
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range out {
				dumpNode(&b, n.YNode(), map[*yaml.Node]int{})
			}
			return b.String(), resultLines(rs), nil
		}
		if items, err := (&kio.ByteReader{Reader: strings.NewReader(doc)}).Read(); err == nil {
			for _, n := range items {
				total++
				if directlyAnnotatable(n) {
					direct++
				}
			}
		}
		wantOut, wantRes, wantErr := run(false)
		gotOut, gotRes, gotErr := run(true)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("case %d: error %v, kustomize's %v\n%s", i, gotErr, wantErr, doc)
		}
		if gotOut != wantOut {
			t.Fatalf("case %d, annotations %v:\n%s\n--- direct ---\n%s--- kustomize ---\n%s", i, annos, doc, gotOut, wantOut)
		}
		if gotRes != wantRes {
			t.Fatalf("case %d results:\n--- direct ---\n%s\n--- kustomize ---\n%s", i, gotRes, wantRes)
		}
	}
	if direct*3 < total*2 {
		t.Fatalf("the direct path took %d of %d resources", direct, total)
	}
	t.Logf("the direct path took %d of %d resources", direct, total)
}

// genAnnotatable returns a YAML stream of one to three generated resources.
func genAnnotatable(rnd *rand.Rand, seed int) string {
	kinds := [][2]string{
		{"apps/v1", "Deployment"}, {"v1", "ReplicationController"}, {"v2", "ReplicationController"},
		{"apps/v1", "ReplicaSet"}, {"apps/v1", "DaemonSet"}, {"apps/v1", "StatefulSet"},
		{"batch/v1", "Job"}, {"other/v1", "Job"}, {"batch/v1", "CronJob"}, {"batch/v1beta1", "CronJob"},
		{"other/v1", "CronJob"}, {"v1", "ConfigMap"}, {"v1", "Pod"}, {"kpt.dev/v1", "Kptfile"},
	}
	pick := func(options ...string) string { return options[rnd.Intn(len(options))] }
	annotations := func(indent string) string {
		return pick("",
			"annotations: {}\n",
			"annotations:\n",
			"annotations: ~\n",
			"annotations: plain\n",
			"annotations: [a]\n",
			"annotations:\n"+indent+"  team: old\n",
			"annotations:\n"+indent+"  team: 'quoted' # a comment\n"+indent+"  other: x\n",
			"annotations:\n"+indent+"  on: \"yes\"\n"+indent+"  n: 12\n",
			"annotations:\n"+indent+"  team: first\n"+indent+"  team: second\n",
			"annotations: {team: flow, x: \"y\"}\n",
			"annotations: &a\n"+indent+"  team: anchored\n",
		)
	}
	metadata := func(name, indent string) string {
		a := annotations(indent + "  ")
		if a != "" {
			a = indent + "  " + a
		}
		return pick(
			indent+"metadata:\n"+indent+"  name: "+name+"\n"+a,
			indent+"metadata:\n"+indent+"  name: "+name+"\n"+indent+"  labels:\n"+indent+"    app: x\n"+a,
			"",
			indent+"metadata: {}\n",
			indent+"metadata:\n",
			indent+"metadata: ~\n",
		)
	}
	var docs []string
	for d := 0; d <= rnd.Intn(3); d++ {
		k := kinds[rnd.Intn(len(kinds))]
		name := fmt.Sprintf("r%d-%d", seed, d)
		doc := "apiVersion: " + k[0] + "\nkind: " + k[1] + "\n"
		md := metadata(name, "")
		if md == "" || !strings.Contains(md, "name:") {
			md = "metadata:\n  name: " + name + "\n" // kustomize needs a name
		}
		doc += md
		template := pick("",
			"  template:\n"+metadata("t", "    ")+"    spec: {}\n",
			"  template: {}\n",
			"  template:\n",
			"  template: scalar\n",
			"  template: [x]\n",
			"  template:\n    spec:\n      containers: []\n",
		)
		switch pick("spec", "none", "null", "scalar", "seq", "cron") {
		case "spec":
			doc += "spec:\n  replicas: 1\n" + template
		case "null":
			doc += "spec:\n"
		case "scalar":
			doc += "spec: text\n"
		case "seq":
			doc += "spec:\n- a\n"
		case "cron":
			doc += "spec:\n  jobTemplate:\n" + pick("    metadata:\n      name: j\n",
				"    spec:\n      template:\n"+metadata("t", "        "), "    {}\n")
		}
		docs = append(docs, doc)
	}
	return strings.Join(docs, "---\n")
}

// genAnnotations returns one to three annotations.
func genAnnotations(rnd *rand.Rand) map[string]string {
	keys := []string{"team", "on", "n", "example.com/owner", "other"}
	values := []string{"a", "yes", "12", "true", "", "x y", "null", "~", "1.5", "0x1F", "checkout"}
	out := map[string]string{}
	for i := 0; i <= rnd.Intn(3); i++ {
		out[keys[rnd.Intn(len(keys))]] = values[rnd.Intn(len(values))]
	}
	return out
}

func TestDirectAnnotatableRefusesWhatKyamlConverts(t *testing.T) {
	for _, doc := range []string{
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: ~\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: text\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec:\n  template: [x]\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\nspec: *x\n",
	} {
		n, err := yaml.Parse(strings.Replace(doc, "spec: *x", "spec: &x {}\nother: *x", 1))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(doc, "*x") {
			// an alias on the path: spec is the anchor's alias
			m := n.YNode()
			for i := 0; i+1 < len(m.Content); i += 2 {
				if m.Content[i].Value == "spec" {
					m.Content[i+1] = m.Content[i+3]
				}
			}
		}
		if directlyAnnotatable(n) {
			t.Errorf("directlyAnnotatable(%q) = true", doc)
		}
	}
}

// dumpNode writes every node under n with what the bytes may not show: its
// tag, style and whether it is shared (met before, by its first number).
func dumpNode(b *strings.Builder, n *yaml.Node, seen map[*yaml.Node]int) {
	if n == nil {
		b.WriteString("nil\n")
		return
	}
	if i, ok := seen[n]; ok {
		fmt.Fprintf(b, "shared %d\n", i)
		return
	}
	seen[n] = len(seen)
	fmt.Fprintf(b, "%d %q %d %q %d:%d (\n", n.Kind, n.Tag, n.Style, n.Value, n.Line, n.Column)
	for _, c := range n.Content {
		dumpNode(b, c, seen)
	}
	b.WriteString(")\n")
}
