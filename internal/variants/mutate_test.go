package variants

import (
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/kptfile"
)

const pkgKptfile = `apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: upf
  annotations:
    config.kubernetes.io/local-config: "true"
pipeline:
  mutators:
    # the package's own function stays after the variant's
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app: upf
`

const pkgConfig = `# settings injected per site
apiVersion: v1
kind: ConfigMap
metadata:
  name: upf-settings
  annotations:
    kpt.dev/config-injection: required
data:
  mtu: "1500"
---
apiVersion: example.com/v1
kind: SiteInfo
metadata:
  name: site
  annotations:
    kpt.dev/config-injection: optional
spec:
  region: unknown
`

const injector = `apiVersion: v1
kind: ConfigMap
metadata:
  name: upf-settings
data:
  mtu: "9000"
  dns: 10.0.0.53
`

func testMutation(t *testing.T, injectors map[string][]byte) Mutation {
	t.Helper()
	v := config.Variant{Upstream: config.VariantUpstream{Package: "base/upf"}, Downstream: config.VariantDownstream{Package: "upf"},
		Labels: map[string]string{"tier": "edge"}, Annotations: map[string]string{"owner": "net"},
		Namespace: "{{ .Repository.Name }}", DeletionPolicy: config.DeleteOnRemove,
		Pipeline: kptfile.Pipeline{Mutators: []kptfile.Function{{Image: "gcr.io/kpt-fn/set-annotations:v0.1.4", ConfigMap: map[string]string{"site": "x"}}},
			Validators: []kptfile.Function{{Image: "gcr.io/kpt-fn/kubeval:v0.3"}}},
		Injectors: []string{"sites/edge-1.yaml"}}
	m, err := MutationFor("acme/catalog", v, config.Repository{Owner: "acme", Name: "edge-1"}, injectors)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestApplyMutations(t *testing.T) {
	files := map[string][]byte{"Kptfile": []byte(pkgKptfile), "settings.yaml": []byte(pkgConfig), "README.md": []byte("# upf\n"),
		"other.yaml": []byte("# untouched\napiVersion: v1\nkind: Service\nmetadata:\n  name: s\n")}
	m := testMutation(t, map[string][]byte{"sites/edge-1.yaml": []byte(injector)})
	once, err := Apply(files, m)
	if err != nil {
		t.Fatal(err)
	}
	kf, err := kptfile.Parse(once["Kptfile"])
	if err != nil {
		t.Fatal(err)
	}
	k := kf.Kptfile()
	own, err := ParseOwnership(k.Metadata.Annotations[OwnerAnnotation])
	if err != nil || !own.SameEntry(m.Owner) || k.Metadata.Annotations[SpecAnnotation] != m.Spec {
		t.Fatalf("ownership %+v (%v), spec %q", own, err, k.Metadata.Annotations[SpecAnnotation])
	}
	if k.Metadata.Labels["tier"] != "edge" || k.Metadata.Annotations["owner"] != "net" {
		t.Fatalf("metadata %+v", k.Metadata)
	}
	var mut []string
	for _, fn := range k.Pipeline.Mutators {
		mut = append(mut, fn.Name+"="+fn.Image)
	}
	// The namespace runs last: after the package's own functions (which
	// may set a namespace of their own).
	want := "porchbot-variant.mutator.0=gcr.io/kpt-fn/set-annotations:v0.1.4,=gcr.io/kpt-fn/set-labels:v0.2.0,porchbot-variant.namespace=" + NamespaceImage
	if strings.Join(mut, ",") != want || k.Pipeline.Mutators[2].ConfigMap["namespace"] != "edge-1" ||
		len(k.Pipeline.Validators) != 1 || k.Pipeline.Validators[0].Name != "porchbot-variant.validator.0" {
		t.Fatalf("pipeline:\n%s", once["Kptfile"])
	}
	if !strings.Contains(string(once["Kptfile"]), "# the package's own function stays after the variant's") {
		t.Fatalf("the Kptfile's comment is gone:\n%s", once["Kptfile"])
	}
	s := string(once["settings.yaml"])
	if !strings.Contains(s, `mtu: "9000"`) || !strings.Contains(s, "dns: 10.0.0.53") || !strings.Contains(s, InjectedFromAnnotation+": sites/edge-1.yaml") ||
		!strings.Contains(s, "region: unknown") || !strings.Contains(s, "# settings injected per site") {
		t.Fatalf("settings.yaml after injection:\n%s", s)
	}
	if string(once["other.yaml"]) != string(files["other.yaml"]) || string(once["README.md"]) != "# upf\n" {
		t.Fatal("files without injection were rewritten")
	}
	if string(files["Kptfile"]) != pkgKptfile {
		t.Fatal("the input was modified")
	}

	// Twice is once.
	twice, err := Apply(once, m)
	if err != nil {
		t.Fatal(err)
	}
	for name := range once {
		if string(twice[name]) != string(once[name]) {
			t.Fatalf("%s changed on a second application:\n%s\n---\n%s", name, once[name], twice[name])
		}
	}

	// A changed entry replaces its functions, never adds to them.
	m2 := m
	m2.Namespace, m2.Pipeline = "", kptfile.Pipeline{}
	again, err := Apply(twice, m2)
	if err != nil {
		t.Fatal(err)
	}
	kf, _ = kptfile.Parse(again["Kptfile"])
	if p := kf.Kptfile().Pipeline; p == nil || len(p.Mutators) != 1 || p.Mutators[0].Image != "gcr.io/kpt-fn/set-labels:v0.2.0" || len(p.Validators) != 0 {
		t.Fatalf("pipeline after the entry dropped its functions:\n%s", again["Kptfile"])
	}
}

func TestApplyRequiredInjectionWithoutMatch(t *testing.T) {
	files := map[string][]byte{"Kptfile": []byte(pkgKptfile), "settings.yaml": []byte(pkgConfig)}
	_, err := Apply(files, testMutation(t, map[string][]byte{"sites/edge-1.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata: {}\n")}))
	if err == nil || !strings.Contains(err.Error(), "ConfigMap upf-settings in settings.yaml") || !strings.Contains(err.Error(), "sites/edge-1.yaml") {
		t.Fatalf("error %v", err)
	}
	// The optional one alone is fine without a match.
	optional := strings.Replace(pkgConfig, "kpt.dev/config-injection: required", "kpt.dev/config-injection: optional", 1)
	if _, err := Apply(map[string][]byte{"Kptfile": []byte(pkgKptfile), "settings.yaml": []byte(optional)}, testMutation(t, nil)); err != nil {
		t.Fatal(err)
	}
}

// TestDisownAndDescribe: orphaning removes the two ownership annotations
// and nothing else; Describe names the labels, the namespace and each
// injected resource with its file.
func TestDisownAndDescribe(t *testing.T) {
	v := config.Variant{Upstream: config.VariantUpstream{Package: "base/upf"}, Labels: map[string]string{"tier": "edge"},
		Namespace: "edge", Injectors: []string{"site/upf.yaml"}}
	m, err := MutationFor("acme/catalog", v, config.Repository{Owner: "acme", Name: "edge-1"},
		map[string][]byte{"site/upf.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\ndata:\n  dnn: edge-1\n")})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{kptfile.FileName: []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n"),
		"site.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: upf-site\n  annotations:\n    kpt.dev/config-injection: required\ndata:\n  dnn: none\n")}
	out, err := Apply(files, m)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(Describe(m, out), "\n")
	for _, want := range []string{"`tier: edge`", "Namespace `edge`", "`ConfigMap upf-site` in `site.yaml` injected from `site/upf.yaml`", m.Spec} {
		if !strings.Contains(lines, want) {
			t.Errorf("Describe lacks %q:\n%s", want, lines)
		}
	}
	kf, _ := kptfile.Parse(out[kptfile.FileName])
	if own, spec := Owned(kf.Kptfile()); own == nil || !own.SameEntry(m.Owner) || spec != m.Spec {
		t.Fatalf("Owned after Apply: %+v %q", own, spec)
	}
	dis, err := Disown(out)
	if err != nil {
		t.Fatal(err)
	}
	kf, _ = kptfile.Parse(dis[kptfile.FileName])
	if own, spec := Owned(kf.Kptfile()); own != nil || spec != "" {
		t.Fatalf("Disown left %+v %q:\n%s", own, spec, dis[kptfile.FileName])
	}
	if kf.Kptfile().Metadata.Labels["tier"] != "edge" || string(dis["site.yaml"]) != string(out["site.yaml"]) {
		t.Fatalf("Disown changed more than the ownership:\n%s", dis[kptfile.FileName])
	}
}
