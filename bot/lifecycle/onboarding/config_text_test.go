package onboarding

import (
	"reflect"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
)

// The proposed file parses to exactly the configuration in force without
// it, under the server's limits, whatever porchbot found; a found name
// cannot end its comment line.
func TestConfigTextIsTheDefaults(t *testing.T) {
	found := Findings{Branch: "main", Packages: []string{"basens", "network/upf", "evil\napprovals:\n  required: 0"},
		Drafts: []string{"drafts/basens/w1"}}
	for _, limits := range []config.ServerLimits{{}, {MinApprovals: 2, MaxPRConcurrentLimit: 5}} {
		text := ConfigText("acme/edge-1", limits, found)
		got, err := config.Parse(config.Path, []byte(text), limits)
		if err != nil {
			t.Fatalf("limits %+v: the proposed file does not parse: %v\n%s", limits, err, text)
		}
		if want := config.DefaultFor(limits); !reflect.DeepEqual(got, want) {
			t.Errorf("limits %+v: the proposed file gives\n%+v\nwant the defaults\n%+v\n%s", limits, got, want, text)
		}
		for _, want := range []string{"# Packages found on main: basens, network/upf, \"evil\\napprovals:\\n  required: 0\".",
			"# Drafts found: drafts/basens/w1."} {
			if !strings.Contains(text, want) {
				t.Errorf("the file lacks %q:\n%s", want, text)
			}
		}
	}
}

func TestBodySaysWhatWasFound(t *testing.T) {
	body := Body("acme/edge-1", Findings{Branch: "main", Packages: []string{"basens"}, Drafts: []string{"drafts/basens/w1"}})
	for _, want := range []string{"`acme/edge-1`", "1 package on `main`: `basens`.", "1 draft: `drafts/basens/w1`.",
		"**Merge**", "**Close**", Marker} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}
	if empty := Body("acme/x", Findings{Branch: "main"}); !strings.Contains(empty, "No kpt package on `main` yet") {
		t.Errorf("an empty repository's body:\n%s", empty)
	}
}

// With the organisation's porchbot.yaml, the proposed file extends it and
// sets nothing over it: parsed with the organisation's preset, it is the
// organisation's configuration.
func TestConfigTextExtendsTheOrganisation(t *testing.T) {
	org := func(name string) (string, []byte, bool, error) {
		return "acme/.github: porchbot.yaml", []byte("apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\napprovals:\n  required: 2\n"), name == "", nil
	}
	text := ConfigText("acme/edge-1", config.ServerLimits{}, Findings{Branch: "main", OrgPreset: "acme/.github: porchbot.yaml"})
	got, _, err := config.ParseChain(config.Path, []byte(text), config.ServerLimits{}, org)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	want := config.DefaultFor(config.ServerLimits{})
	want.Approvals.Required = 2
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant the organisation's\n%+v\n%s", got, want, text)
	}
	if !strings.Contains(text, "extends: [org]") || !strings.Contains(text, "# approvals:\n#   required: 1") {
		t.Errorf("the file does not extend the organisation with the keys commented out:\n%s", text)
	}
}
