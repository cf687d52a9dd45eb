package kptfile

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// statusWith is a Kptfile whose render status holds lists of results with
// the messages given.
func statusWith(messages [][]string, severity framework.Severity) *Kptfile {
	k := &Kptfile{APIVersion: APIVersion, Kind: Kind}
	k.Metadata.Name = "app"
	rs := &RenderStatus{ErrorSummary: "x: exit code 1"}
	for i, ms := range messages {
		s := PipelineStepResult{Image: "ghcr.io/kptdev/krm-functions-catalog/set-namespace:v0.4.1", ExitCode: i % 2}
		for j, m := range ms {
			r := &framework.Result{Message: m, Severity: severity}
			switch j % 7 {
			case 3:
				r.Field = &framework.Field{Path: "metadata.annotations"}
				r.File = &framework.File{Path: "resources-0" + strconv.Itoa(j%10) + ".yaml", Index: j % 3}
			case 5:
				r.ResourceRef = &yaml.ResourceIdentifier{TypeMeta: yaml.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, NameMeta: yaml.NameMeta{Name: m}}
				r.Tags = map[string]string{"k": m}
			case 6:
				r = nil
			}
			s.Results = append(s.Results, r)
		}
		if i%2 == 1 {
			s.ErrorResults = s.Results[:1]
			rs.ValidationSteps = append(rs.ValidationSteps, s)
		} else {
			rs.MutationSteps = append(rs.MutationSteps, s)
		}
	}
	k.Status = &Status{Conditions: []Condition{{Type: ConditionRendered, Status: ConditionTrue, Reason: ReasonRenderSuccess}}, RenderStatus: rs}
	return k
}

// TestMarshalStatusIsMarshal: the spliced encoding of many results is
// byte for byte the encoder's, for messages of every shape (plain ones it
// writes itself; quoted, multi-line, indicator-laden or boolean-looking ones
// make it leave the whole file to the encoder).
func TestMarshalStatusIsMarshal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", "q", "0", "7", " ", " ", ":", "#", "'", "\"", "-", "_", ",", ".", "(", ")", "[", "]", "{", "}",
		"!", "&", "*", "|", ">", "%", "@", "`", "\t", "\n", "~", "é", "=", "/", "?"}
	words := []string{"true", "Yes", "null", "off", "N", "~", "1.5", "0x1F", "- a", "a: b", "a #b", " lead", "trail ", ""}
	message := func() string {
		if rng.IntN(8) == 0 {
			return words[rng.IntN(len(words))]
		}
		var b strings.Builder
		b.WriteString(string(rune('A' + rng.IntN(26))))
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	spliced := 0
	for round := 0; round < 300; round++ {
		var lists [][]string
		for s := rng.IntN(4) + 1; s > 0; s-- {
			var ms []string
			for n := rng.IntN(60) + 1; n > 0; n-- {
				if round%3 == 1 {
					// what plainScalar lets through, every character it allows
					safe := "abcXYZ0189 ()[]{},=./_-!&*|>%@`'\"~?+$^;<\\"
					b := []byte{byte('a' + rng.IntN(26))}
					for n := rng.IntN(30); n > 0; n-- {
						b = append(b, safe[rng.IntN(len(safe))])
					}
					ms = append(ms, strings.TrimRight(string(b), " "))
					continue
				}
				if round%3 == 0 {
					ms = append(ms, "Resource(apiVersion=v1, kind=ConfigMap, namespace=, name=cm-"+string(rune('a'+rng.IntN(26)))+") does not have upstream origin.")
					continue
				}
				ms = append(ms, message())
			}
			lists = append(lists, ms)
		}
		for _, sev := range []framework.Severity{framework.Warning, ""} {
			k := statusWith(lists, sev)
			want, err := Marshal(k)
			if err != nil {
				t.Fatal(err)
			}
			got, took, err := marshalSpliced(k)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("round %d: spliced\n%s\nencoder\n%s", round, got, want)
			}
			if bytes.Contains(got, []byte("porchbot-results-")) {
				t.Fatal("a placeholder leaked")
			}
			if should := countResults(k) >= splicedFrom; took != should {
				t.Fatalf("round %d: spliced %v, should %v", round, took, should)
			}
			if took {
				spliced++
			}
		}
	}
	if spliced == 0 {
		t.Fatal("no round took the spliced path")
	}
	t.Logf("%d rounds spliced", spliced)
}

// TestMarshalStatusTakesItsOwnPath: many plain results are written
// without the encoder's help and the file still reads back as it was.
func TestMarshalStatusTakesItsOwnPath(t *testing.T) {
	var ms []string
	for i := 0; i < 3*splicedFrom; i++ {
		ms = append(ms, "namespace [default] updated to staging, 1 value(s) changed")
	}
	k := statusWith([][]string{ms, ms[:2]}, framework.Info)
	if countResults(k) < splicedFrom {
		t.Fatal("the case would not take the spliced path")
	}
	got, took, err := marshalSpliced(k)
	if err != nil || !took {
		t.Fatalf("spliced %v: %v", took, err)
	}
	var back Kptfile
	if err := yaml.Unmarshal(got, &back); err != nil {
		t.Fatal(err)
	}
	rs := back.Status.RenderStatus
	if len(rs.MutationSteps[0].Results) != 3*splicedFrom || rs.ValidationSteps[0].ErrorResults[0].Severity != framework.Info {
		t.Errorf("read back: %+v", rs)
	}
}

func countResults(k *Kptfile) int {
	n := 0
	for _, s := range append(append([]PipelineStepResult(nil), k.Status.RenderStatus.MutationSteps...), k.Status.RenderStatus.ValidationSteps...) {
		n += len(s.Results) + len(s.ErrorResults)
	}
	return n
}
