package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// orgFiles is an organisation's .github repository as a PresetReader.
func orgFiles(files map[string]string) PresetReader {
	return func(name string) (string, []byte, bool, error) {
		path := "porchbot.yaml"
		if name != "" {
			path = "porchbot/" + name + ".yaml"
		}
		text, ok := files[path]
		return "acme/.github: " + path, []byte(text), ok, nil
	}
}

const head = "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n"

// A file extends the organisation's preset and a built-in one: each layer
// sets what it names, later layers win (a list as a whole), and the
// provenance says which file and line set each value.
func TestParseChainLayersAndProvenance(t *testing.T) {
	org := orgFiles(map[string]string{
		"porchbot.yaml": head + "approvals:\n  required: 2\n  approvers: [\"@acme/platform\"]\nupdates:\n  labels: [org]\n",
	})
	file := head + "extends: [org, porchbot:check-only]\nupdates:\n  labels: [mine]\n"
	cfg, prov, err := ParseChain(Path, []byte(file), ServerLimits{}, org)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.Approvals.Required = 2
	want.Approvals.Approvers = []UserOrTeam{{Org: "acme", Team: "platform"}}
	want.Render.OnDraftPush = OnDraftPushCheck
	want.Updates.Labels = []string{"mine"}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("the chain gives\n%+v\nwant\n%+v", cfg, want)
	}
	for field, from := range map[string]string{
		"approvals.required":  "acme/.github: porchbot.yaml:4",
		"approvals.approvers": "acme/.github: porchbot.yaml:5",
		"render.onDraftPush":  "preset porchbot:check-only:4",
		"updates.labels":      Path + ":5",
	} {
		if prov[field] != from {
			t.Errorf("%s came from %q, want %q (all: %v)", field, prov[field], from, prov)
		}
	}
	if _, ok := prov["packages.root"]; ok {
		t.Errorf("a default has a provenance: %v", prov)
	}
}

// Every problem names its file: a preset that does not exist, a name
// that is no preset, the organisation's preset where nothing reads it, a
// cycle, a preset setting variants, a preset the server limits refuse.
func TestParseChainProblems(t *testing.T) {
	org := orgFiles(map[string]string{
		"porchbot.yaml":      head + "extends: [org:edge]\n",
		"porchbot/edge.yaml": head + "extends: [org]\n",
		"porchbot/vars.yaml": head + "variants: []\n",
		"porchbot/self.yaml": head + "approvals:\n  allowSelfApproval: true\n",
	})
	for _, tc := range []struct {
		name, file string
		org        PresetReader
		limits     ServerLimits
		want       string
	}{
		{"unknown built-in", head + "extends: [porchbot:nope]\n", nil, ServerLimits{},
			`.github/porchbot.yaml:3:11: extends[0]: no preset "porchbot:nope" is built into porchbot (there are: porchbot:check-only, porchbot:deployment, porchbot:manual-publish, porchbot:recommended, porchbot:two-approvals)`},
		{"no preset", head + "extends: [acme/.github]\n", org, ServerLimits{},
			`.github/porchbot.yaml:3:11: extends[0]: "acme/.github" is no preset: write org, org:<name> (porchbot/<name>.yaml of the organisation's .github repository) or porchbot:<name>`},
		{"org unreadable here", head + "extends: [org]\n", nil, ServerLimits{},
			`.github/porchbot.yaml:3:11: extends[0]: "org" is read from the organisation's .github repository, which cannot be read here`},
		{"missing org file", head + "extends: [org:gone]\n", org, ServerLimits{},
			`.github/porchbot.yaml:3:11: extends[0]: "org:gone": acme/.github: porchbot/gone.yaml has no such file`},
		{"cycle", head + "extends: [org]\n", org, ServerLimits{},
			`acme/.github: porchbot/edge.yaml:3:11: extends[0]: "org" is already part of this configuration (a preset named twice, or a cycle)`},
		{"variants in a preset", head + "extends: [org:vars]\n", org, ServerLimits{},
			`acme/.github: porchbot/vars.yaml:3:11: variants: a preset cannot set variants: only the repository's own file can`},
		{"server limits", head + "extends: [org:self]\n", org, ServerLimits{},
			`acme/.github: porchbot/self.yaml:4:22: approvals.allowSelfApproval: the server does not allow self-approval; remove the setting or set it to false`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseChain(Path, []byte(tc.file), tc.limits, tc.org)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("got %v, want a ValidationError", err)
			}
			if got := verr.Error(); !strings.Contains(got, tc.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

// Every built-in preset is a valid configuration of its own.
func TestBuiltinPresetsParse(t *testing.T) {
	for _, name := range BuiltinPresetNames() {
		text, _ := BuiltinPreset(strings.TrimPrefix(name, "porchbot:"))
		if _, err := Parse("preset "+name, []byte(text), ServerLimits{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if _, err := Parse(Path, []byte(head+"extends: ["+name+"]\n"), ServerLimits{}); err != nil {
			t.Errorf("extending %s: %v", name, err)
		}
	}
}
