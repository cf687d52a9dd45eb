package rollout

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// goldenCase is a file of testdata/rollout: the facts, and the plan
// Decide must make of them (written by hand, in planText's words).
type goldenCase struct {
	Spec struct {
		RequireDeployment bool `json:"requireDeployment"`
		Waves             []struct {
			Name          string            `json:"name"`
			Repositories  []string          `json:"repositories"`
			Topic         string            `json:"topic"`
			Labels        map[string]string `json:"labels"`
			MaxInProgress int               `json:"maxInProgress"`
			Soak          string            `json:"soak"`
		} `json:"waves"`
	} `json:"spec"`
	Revision    int          `json:"revision"`
	Now         time.Time    `json:"now"`
	Downstreams []Downstream `json:"downstreams"`
	Record      Record       `json:"record"`
	Want        string       `json:"want"`
}

func (g goldenCase) spec(t testing.TB) Spec {
	s := Spec{Package: "base/upf", RequireDeployment: g.Spec.RequireDeployment}
	for _, w := range g.Spec.Waves {
		var soak time.Duration
		if w.Soak != "" {
			var err error
			if soak, err = time.ParseDuration(w.Soak); err != nil {
				t.Fatal(err)
			}
		}
		s.Waves = append(s.Waves, Wave{Name: w.Name, MaxInProgress: w.MaxInProgress, Soak: soak,
			Select: Selector{Repositories: w.Repositories, Topic: w.Topic, Labels: w.Labels}})
	}
	return s
}

// planText is a plan in the golden files' words.
func planText(p Plan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "state: %s: %s\n", p.State, p.Reason)
	for _, w := range p.Waves {
		fmt.Fprintf(&b, "wave %s %s: total=%d merged=%d healthy=%d in-progress=%d excluded=%d", w.Name, w.State, w.Total, w.Merged, w.Healthy, w.InProgress, w.Excluded)
		if w.State == WaveSoaking {
			fmt.Fprintf(&b, " soak-until=%s", w.SoakUntil.UTC().Format(time.RFC3339))
		}
		if w.Skip != nil {
			fmt.Fprintf(&b, " skipped-by=%s", w.Skip.By)
		}
		b.WriteString("\n")
		for _, f := range w.Failures {
			fmt.Fprintf(&b, "  failing %s %s: %s %s %q\n", f.Repo, f.Package, f.Context, f.Report.State, f.Report.Description)
		}
		if len(w.Awaited) > 0 {
			fmt.Fprintf(&b, "  awaiting %s\n", strings.Join(w.Awaited, " "))
		}
	}
	for _, o := range p.Offers {
		fmt.Fprintf(&b, "offer %s %s v%d wave=%s", o.Repo, o.Package, o.Revision, o.Wave)
		if o.Refresh {
			b.WriteString(" refresh")
		}
		b.WriteString("\n")
	}
	if !p.Wake.IsZero() {
		fmt.Fprintf(&b, "wake: %s\n", p.Wake.UTC().Format(time.RFC3339))
	}
	return b.String()
}

func TestDecideGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/rollout/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var g goldenCase
			if err := yaml.UnmarshalStrict(data, &g); err != nil {
				t.Fatal(err)
			}
			p := Decide(g.spec(t), g.Revision, g.Downstreams, g.Record, g.Now)
			if got := planText(p); got != g.Want {
				t.Errorf("plan:\n%s\nwant:\n%s", got, g.Want)
			}
		})
	}
}
