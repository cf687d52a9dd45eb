package config

import "sort"

// builtinPresets are the presets built into porchbot, named
// porchbot:<name> in extends. Each is a RepositoryConfig of its own, as an
// organisation's presets are: a team extends what fits and overrides the
// rest in its own file.
var builtinPresets = map[string]string{
	// The defaults, written out: extending it changes nothing, and says so.
	"recommended": "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\n",
	// Two approvals for every proposal, never the author's own.
	"two-approvals": `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
approvals:
  required: 2
  allowSelfApproval: false
`,
	// porchbot renders drafts and reports, and never pushes a render
	// commit onto a draft.
	"check-only": `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
render:
  onDraftPush: check
`,
	// Revisions are published only on /porch publish, not on merge.
	"manual-publish": `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
lifecycle:
  publishOn: never
`,
	// A deployment repository (Porch's flag): packages here are deployed
	// as they are; update pull requests are labelled for deployers.
	"deployment": `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
packages:
  deployment: true
updates:
  labels: [porch/update, deployment]
`,
}

// BuiltinPresetNames lists the built-in presets, as extends names them.
func BuiltinPresetNames() []string {
	names := make([]string, 0, len(builtinPresets))
	for n := range builtinPresets {
		names = append(names, "porchbot:"+n)
	}
	sort.Strings(names)
	return names
}

// BuiltinPreset is the text of a built-in preset (name without the
// porchbot: prefix).
func BuiltinPreset(name string) (string, bool) {
	t, ok := builtinPresets[name]
	return t, ok
}
