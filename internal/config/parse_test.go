package config

import (
	"errors"
	"strings"
	"testing"
)

// problems parses src (after the minimal header when header is set) and
// returns its problems as "file:line:col: message" lines.
func problems(t *testing.T, src string, limits ServerLimits) []string {
	t.Helper()
	c, err := Parse(file, []byte(src), limits)
	if err == nil {
		if c == nil {
			t.Fatal("Parse returned neither a config nor an error")
		}
		return nil
	}
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v (%T), want a *ValidationError", err, err)
	}
	if c != nil {
		t.Error("Parse returned a config with its error")
	}
	out := make([]string, len(verr.Problems))
	for i, p := range verr.Problems {
		out[i] = p.String()
	}
	return out
}

func TestParseGoodFiles(t *testing.T) {
	tests := map[string]string{
		"minimal":          minimal,
		"comments":         "# porchbot\n" + minimal + "# end\n",
		"root dot":         minimal + "packages: {root: .}\n",
		"empty lists":      minimal + "approvals: {approvers: []}\nupdates: {labels: [], reviewers: []}\nvariants: []\n",
		"empty exec":       minimal + "functions: {exec: {}}\nrender: {mutators: [], validators: []}\n",
		"required zero":    minimal + "approvals: {required: 0}\n",
		"unlimited prs":    minimal + "updates: {prConcurrentLimit: 0}\n",
		"hex int":          minimal + "approvals: {required: 0x2}\n",
		"self approval no": minimal + "approvals: {allowSelfApproval: false}\n",
		"automerge no":     minimal + "updates: {automerge: false}\n",
		"no rebase":        minimal + "lifecycle: {rebaseDrafts: false}\n",
		"branch":           minimal + "packages: {deploymentBranch: release/v1.x}\n",
		"topic":            minimal + "variants:\n- upstream: {package: a}\n  targets: {repositorySelector: {topic: edge-sites}}\n  downstream: {package: \"{{.Repository.FullName}}/a\"}\n",
	}
	for name, src := range tests {
		if p := problems(t, src, ServerLimits{}); p != nil {
			t.Errorf("%s: %s", name, strings.Join(p, "\n"))
		}
	}
}

func TestParseBadFiles(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"empty", "", []string{
			".github/porchbot.yaml:1:1: the file is empty: delete it to use the defaults, or start it with apiVersion: porchbot.dev/v1alpha1 and kind: RepositoryConfig"}},
		{"list", "- a\n", []string{
			".github/porchbot.yaml:1:1: the configuration must be a mapping (apiVersion: porchbot.dev/v1alpha1, kind: RepositoryConfig, ...), got a list"}},
		{"no identity", "packages: {}\n", []string{
			`.github/porchbot.yaml:1:1: missing required field "apiVersion"`,
			`.github/porchbot.yaml:1:1: missing required field "kind"`}},
		{"wrong identity", "apiVersion: porchbot.dev/v1\nkind: Config\n", []string{
			`.github/porchbot.yaml:1:13: apiVersion: must be porchbot.dev/v1alpha1, got "porchbot.dev/v1"`,
			`.github/porchbot.yaml:2:7: kind: must be RepositoryConfig, got "Config"`}},
		{"typo top", minimal + "aprovals:\n  required: 1\n", []string{
			`.github/porchbot.yaml:3:1: unknown field "aprovals" (did you mean "approvals"?)`}},
		{"typo nested", minimal + "approvals:\n  requird: 2\n", []string{
			`.github/porchbot.yaml:4:3: unknown field "requird" in approvals (did you mean "required"?)`}},
		{"no suggestion", minimal + "colour: blue\n", []string{
			`.github/porchbot.yaml:3:1: unknown field "colour" (known fields: apiVersion, kind, extends, packages, lifecycle, approvals, render, functions, updates, variants, dashboard, flows)`}},
		{"duplicate key", minimal + "kind: RepositoryConfig\n", []string{
			`.github/porchbot.yaml:3:1: duplicate field "kind" (first at 2:1)`}},
		{"section type", minimal + "approvals: 2\n", []string{
			`.github/porchbot.yaml:3:12: approvals: must be a mapping, got integer 2`}},
		{"required string", minimal + "approvals:\n  required: \"two\"\n", []string{
			`.github/porchbot.yaml:4:13: approvals.required: must be an integer, got string "two"`}},
		{"required quoted int", minimal + "approvals:\n  required: \"2\"\n", []string{
			`.github/porchbot.yaml:4:13: approvals.required: must be an integer, got string "2" (remove the quotes)`}},
		{"required float", minimal + "approvals: {required: 1.5}\n", []string{
			`.github/porchbot.yaml:3:23: approvals.required: must be an integer, got number 1.5`}},
		{"required negative", minimal + "approvals: {required: -1}\n", []string{
			`.github/porchbot.yaml:3:23: approvals.required: must be 0 or more, got -1`}},
		{"required huge", minimal + "approvals: {required: 99999999999}\n", []string{
			`.github/porchbot.yaml:3:23: approvals.required: integer 99999999999 is out of range`}},
		{"publishOn", minimal + "lifecycle:\n  publishOn: merged\n", []string{
			`.github/porchbot.yaml:4:14: lifecycle.publishOn: must be one of merge, never, got "merged" (did you mean "merge"?)`}},
		{"releases yes", minimal + "lifecycle: {releases: yes}\n", []string{
			`.github/porchbot.yaml:3:23: lifecycle.releases: must be true or false, got string "yes"`}},
		{"rebaseDrafts", minimal + "lifecycle:\n  rebaseDrafts: always\n", []string{
			`.github/porchbot.yaml:4:17: lifecycle.rebaseDrafts: must be true or false, got string "always"`}},
		{"kpt", minimal + "render: {kpt: v1.0.0-beta.60}\n", []string{
			`.github/porchbot.yaml:3:15: render.kpt: must be one of v1.0.0-beta.56, v1.0.0-beta.67, got "v1.0.0-beta.60" (did you mean "v1.0.0-beta.67"?)`}},
		{"pushOnFailure", minimal + "render: {pushOnFailure: sometimes}\n", []string{
			`.github/porchbot.yaml:3:25: render.pushOnFailure: must be true or false, got string "sometimes"`}},
		{"onDraftPush", minimal + "render: {onDraftPush: push}\n", []string{
			`.github/porchbot.yaml:3:23: render.onDraftPush: must be one of commit, check, got "push"`}},
		{"approvers", minimal + "approvals:\n  approvers: [alice, \"@org/\", \"@-x/t\", \"bob smith\", \"-bob\", \"@acme/Plat form\", ALICE]\n", []string{
			`.github/porchbot.yaml:4:22: approvals.approvers: "@org/": the team slug is missing or too long`,
			`.github/porchbot.yaml:4:31: approvals.approvers: "@-x/t": organisation "-x": a GitHub login does not start or end with a hyphen`,
			`.github/porchbot.yaml:4:40: approvals.approvers: "bob smith" is not a GitHub login or @org/team: a GitHub login has only letters, digits and hyphens`,
			`.github/porchbot.yaml:4:53: approvals.approvers: "-bob" is not a GitHub login or @org/team: a GitHub login does not start or end with a hyphen`,
			`.github/porchbot.yaml:4:61: approvals.approvers: "@acme/Plat form": a team slug has only letters, digits, '-', '_' and '.'`,
			`.github/porchbot.yaml:4:80: approvals.approvers: "ALICE" is listed twice (first at 4:15)`}},
		{"approvers not a list", minimal + "approvals: {approvers: alice}\n", []string{
			`.github/porchbot.yaml:3:24: approvals.approvers: must be a list, got string "alice"`}},
		{"root", minimal + "packages:\n  root: ../up\n", []string{
			`.github/porchbot.yaml:4:9: packages.root: "../up" must not leave the repository ("..")`}},
		{"root github", minimal + "packages: {root: .github/pkgs}\n", []string{
			`.github/porchbot.yaml:3:18: packages.root: ".github/pkgs" must not be under .github`}},
		{"root odd", minimal + "packages: {root: \"a b\"}\n", []string{
			`.github/porchbot.yaml:3:18: packages.root: "a b" is not a usable directory: it contains a space`}},
		{"branch", minimal + "packages: {deploymentBranch: \"main.lock\"}\n", []string{
			`.github/porchbot.yaml:3:30: packages.deploymentBranch: invalid branch name "main.lock": segment "main.lock" ends with ".lock"`}},
		{"labels", minimal + "updates:\n  labels: [a, \"\", A, " + strings.Repeat("x", 51) + "]\n", []string{
			`.github/porchbot.yaml:4:15: updates.labels[1]: must not be empty`,
			`.github/porchbot.yaml:4:19: updates.labels: label "A" is listed twice`,
			`.github/porchbot.yaml:4:22: updates.labels: label "` + strings.Repeat("x", 51) + `" is longer than GitHub's 50 characters`}},
		{"strategy", minimal + "updates: {strategy: resource-merg, onConflict: ours}\n", []string{
			`.github/porchbot.yaml:3:21: updates.strategy: must be one of resource-merge, fast-forward, force-delete-replace, copy-merge, got "resource-merg" (did you mean "resource-merge"?)`,
			`.github/porchbot.yaml:3:48: updates.onConflict: must be one of upstream, local, fail, got "ours"`}},
		{"render function", minimal + "render:\n  validators:\n  - image: a\n    exec: b\n", []string{
			`.github/porchbot.yaml:6:11: render.validators[0]: a function has "image" or "exec", not both`,
			`.github/porchbot.yaml:6:11: render.validators[0].exec: exec function "b" is not declared in functions.exec (and the server's exec allowlist does not name it)`}},
		{"exec names", minimal + "functions:\n  exec:\n    \"bad name\": /x\n    empty: \"\"\n", []string{
			`.github/porchbot.yaml:5:5: functions.exec["bad name"]: exec function name "bad name": only letters, digits, '-', '_' and '.' are allowed`,
			`.github/porchbot.yaml:6:12: functions.exec.empty: the path of exec function "empty" is empty`}},
		{"variant required", minimal + "variants:\n- paused: true\n", []string{
			`.github/porchbot.yaml:4:3: variants[0]: missing required field "upstream"`,
			`.github/porchbot.yaml:4:3: variants[0]: missing required field "targets"`}},
		{"variant fields", minimal + `variants:
- upstream: {package: a, revision: v0}
  targets: {repositories: [], repositorySelector: {}}
  downstream: {package: "{{ .Repository.Name "}
  namespace: "{{ .Repo }}"
  labels: {"a/b/c": x, ok: "bad value!"}
  injectors: [/etc/passwd, a/../b, ok.yaml]
  deletionPolicy: keep
  paused: 1
  extra: 1
`, []string{
			`.github/porchbot.yaml:4:36: variants[0].upstream.revision: must be "latest" or v<N> with N ≥ 1, got string "v0"`,
			`.github/porchbot.yaml:5:51: variants[0].targets: give repositories or repositorySelector, not both`,
			`.github/porchbot.yaml:6:25: variants[0].downstream.package: invalid template: unclosed action`,
			`.github/porchbot.yaml:7:14: variants[0].namespace: a template may only use {{ .Repository.Name }}, {{ .Repository.Owner }} or {{ .Repository.FullName }}, optionally piped to lower or upper`,
			`.github/porchbot.yaml:8:12: variants[0].labels["a/b/c"]: key "a/b/c": the name must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
			`.github/porchbot.yaml:8:28: variants[0].labels.ok: value "bad value!": a label value has only letters, digits, '-', '_' and '.'`,
			`.github/porchbot.yaml:9:15: variants[0].injectors[0]: "/etc/passwd" must be a path relative to the repository root`,
			`.github/porchbot.yaml:9:28: variants[0].injectors[1]: "a/../b" must be a clean path ("b")`,
			`.github/porchbot.yaml:10:19: variants[0].deletionPolicy: must be one of delete, orphan, got "keep"`,
			`.github/porchbot.yaml:11:11: variants[0].paused: must be true or false, got integer 1`,
			`.github/porchbot.yaml:12:3: unknown field "extra" in variants[0] (known fields: upstream, targets, downstream, labels, annotations, namespace, pipeline, injectors, adoptionPolicy, deletionPolicy, paused, rollout)`}},
		{"variant targets", minimal + `variants:
- upstream: {package: a}
  targets: {repositories: []}
- upstream: {package: a}
  targets: {repositories: [org/x, "org/x/y", "o/x"]}
- upstream: {package: a}
  targets: {repositorySelector: {topic: Edge}}
`, []string{
			`.github/porchbot.yaml:5:27: variants[0].targets.repositories: must name at least one repository`,
			`.github/porchbot.yaml:7:35: variants[1].targets.repositories: "org/x/y": a repository is written owner/name`,
			`.github/porchbot.yaml:9:41: variants[2].targets.repositorySelector.topic: "Edge": a topic has only lowercase letters, digits and hyphens`}},
		{"variant rendered names", minimal + `variants:
- upstream: {package: a}
  targets: {repositories: [org/Edge_1]}
  namespace: "{{ .Repository.Name }}"
- upstream: {package: a}
  targets: {repositorySelector: {topic: edge}}
  downstream: {package: "{{ .Repository.Name }}/.hidden"}
`, []string{
			`.github/porchbot.yaml:6:14: variants[0].namespace: namespace "Edge_1" for org/Edge_1: a namespace has only lowercase letters, digits and '-'`,
			`.github/porchbot.yaml:9:25: variants[1].downstream.package: downstream package for example-org/example-repo: invalid package name "example-repo/.hidden": segment ".hidden": it starts with a dot (hidden directories are not packages, and git refuses such ref names)`}},
		{"variant duplicates", minimal + `variants:
- upstream: {package: a}
  targets: {repositories: [org/x]}
- upstream: {package: b}
  targets: {repositories: [ORG/X]}
  downstream: {package: a}
`, []string{
			`.github/porchbot.yaml:6:3: variants[1]: downstream package "a" in ORG/X is already produced by variants[0]`}},
		{"anchors", minimal + "approvals: &a {required: 1}\nupdates: *a\n", []string{
			`.github/porchbot.yaml:3:12: YAML anchor &a is not allowed`,
			`.github/porchbot.yaml:4:10: YAML alias *a is not allowed; write the value out`}},
		{"syntax", minimal + "approvals:\n  required: [1\n", []string{
			`.github/porchbot.yaml:3:1: invalid YAML: did not find expected ',' or ']'`}},
		{"tabs", minimal + "approvals:\n\trequired: 1\n", []string{
			`.github/porchbot.yaml:4:1: invalid YAML: found character that cannot start any token`}},
		{"two documents", minimal + "---\n" + minimal, []string{
			`.github/porchbot.yaml:4:1: only one YAML document is allowed; remove the "---" separator and what follows`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problems(t, tt.src, ServerLimits{})
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseBounds(t *testing.T) {
	big := minimal + "# " + strings.Repeat("x", Limits.MaxBytes) + "\n"
	if p := problems(t, big, ServerLimits{}); len(p) != 1 || !strings.Contains(p[0], ":1:1: file is") {
		t.Errorf("oversized: %v", p)
	}
	deep := minimal + "variants: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n"
	if p := problems(t, deep, ServerLimits{}); len(p) != 1 || !strings.Contains(p[0], "nested more than 32 levels deep") {
		t.Errorf("deep: %v", p)
	}
	many := minimal + "updates: {labels: [" + strings.Repeat("a, ", Limits.MaxNodes) + "a]}\n"
	if p := problems(t, many, ServerLimits{}); len(p) != 1 || !strings.Contains(p[0], "too many YAML nodes") {
		t.Errorf("many: %v", p)
	}
	// A billion-laughs document is refused at its first anchor.
	laughs := minimal + "a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"
	if p := problems(t, laughs, ServerLimits{}); len(p) == 0 || !strings.Contains(p[0], "anchor &a") {
		t.Errorf("laughs: %v", p)
	}
}

// TestNarrowing checks each rule of ServerLimits: a repository may narrow
// the server's limits but never widen them.
func TestNarrowing(t *testing.T) {
	tests := []struct {
		name   string
		limits ServerLimits
		src    string
		want   string // "" = accepted, else the problem
	}{
		{"exec allowed", ServerLimits{ExecAllowlist: []string{"kubeconform"}}, "functions: {exec: {kubeconform: /bin/kc}}", ""},
		{"exec pinned ok", ServerLimits{ExecAllowlist: []string{" kubeconform=/bin/kc "}}, "functions: {exec: {kubeconform: /bin/kc}}", ""},
		{"exec pinned other path", ServerLimits{ExecAllowlist: []string{"kubeconform=/bin/kc"}}, "functions: {exec: {kubeconform: /tmp/kc}}",
			`:3:33: functions.exec.kubeconform: the server allows exec function "kubeconform" only at /bin/kc`},
		{"exec not allowed", ServerLimits{ExecAllowlist: []string{"kubeconform"}}, "functions: {exec: {kubeconfrm: /bin/kc}}",
			`:3:20: functions.exec.kubeconfrm: the server does not allow exec function "kubeconfrm" (allowed: kubeconform); did you mean "kubeconform"?`},
		{"exec empty allowlist", ServerLimits{}, "functions: {exec: {x: /bin/x}}",
			`:3:20: functions.exec.x: the server does not allow exec function "x" (its exec allowlist is empty)`},
		{"exec refused once", ServerLimits{}, "functions: {exec: {x: /bin/x}}\nrender: {mutators: [{exec: x}]}",
			`:3:20: functions.exec.x: the server does not allow exec function "x" (its exec allowlist is empty)`},
		{"exec used and allowed", ServerLimits{ExecAllowlist: []string{"x"}}, "functions: {exec: {x: /bin/x}}\nrender: {mutators: [{exec: x}]}", ""},
		{"required at minimum", ServerLimits{MinApprovals: 2}, "approvals: {required: 2}", ""},
		{"required above minimum", ServerLimits{MinApprovals: 2}, "approvals: {required: 3}", ""},
		{"required below minimum", ServerLimits{MinApprovals: 2}, "approvals: {required: 1}",
			`:3:23: approvals.required: the server requires at least 2 approvals; a repository may ask for more, not fewer`},
		{"self approval forbidden", ServerLimits{}, "approvals: {allowSelfApproval: true}",
			`:3:32: approvals.allowSelfApproval: the server does not allow self-approval; remove the setting or set it to false`},
		{"self approval allowed", ServerLimits{AllowSelfApproval: true}, "approvals: {allowSelfApproval: true}", ""},
		{"prs within max", ServerLimits{MaxPRConcurrentLimit: 5}, "updates: {prConcurrentLimit: 5}", ""},
		{"prs above max", ServerLimits{MaxPRConcurrentLimit: 5}, "updates: {prConcurrentLimit: 6}",
			`:3:30: updates.prConcurrentLimit: the server allows at most 5 update pull requests at once, got 6`},
		{"prs unlimited under max", ServerLimits{MaxPRConcurrentLimit: 5}, "updates: {prConcurrentLimit: 0}",
			`:3:30: updates.prConcurrentLimit: the server allows at most 5 update pull requests at once; 0 (no limit) would exceed it`},
		{"prs no max", ServerLimits{}, "updates: {prConcurrentLimit: 500}", ""},
		{"automerge forbidden", ServerLimits{}, "updates: {automerge: true}",
			`:3:22: updates.automerge: the server does not allow automerge; remove the setting or set it to false`},
		{"automerge allowed", ServerLimits{AllowAutomerge: true}, "updates: {automerge: true}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(problems(t, minimal+tt.src+"\n", tt.limits), "\n")
			switch {
			case tt.want == "" && got != "":
				t.Errorf("refused: %s", got)
			case tt.want != "" && got != file+tt.want:
				t.Errorf("got\n%s\nwant\n%s", got, file+tt.want)
			}
		})
	}
}

// TestTyposNameFieldAndLineNeverAGoType: misspelt keys and values of the
// wrong shape, deep in functions and variants, are reported at their line
// with the configuration's own field path, never with a Go type name.
func TestTyposNameFieldAndLineNeverAGoType(t *testing.T) {
	data := "apiVersion: porchbot.dev/v1alpha1\nkind: RepositoryConfig\nrender:\n  mutators:\n    - imge: x\n      configMap: [a]\n" +
		"approvals:\n  required: [1]\nvariants:\n  - upstream: 3\n"
	_, err := Parse(Path, []byte(data), ServerLimits{})
	if err == nil {
		t.Fatal("a config with typos parsed")
	}
	msg := err.Error()
	for _, want := range []string{
		Path + `:5:7: unknown field "imge" in render.mutators[0] (did you mean "image"?)`,
		Path + `:6:18: render.mutators[0].configMap:`,
		Path + `:8:13: approvals.required:`,
		Path + `:10:15: variants[0].upstream:`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	for _, goName := range []string{"kptfile.", "config.", "render.Function", "map[", "[]", "unmarshal", "int64"} {
		if strings.Contains(strings.ReplaceAll(msg, Path, "FILE"), goName) {
			t.Errorf("error names the Go type %q:\n%s", goName, msg)
		}
	}
}

// lifecycle.rebaseDrafts is true unless the file says false.
func TestRebaseDrafts(t *testing.T) {
	for src, want := range map[string]bool{minimal: true, minimal + "lifecycle: {rebaseDrafts: false}\n": false,
		minimal + "lifecycle: {rebaseDrafts: true}\n": true} {
		cfg, err := Parse(Path, []byte(src), ServerLimits{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Lifecycle.RebaseDrafts != want {
			t.Errorf("%q: rebaseDrafts %t, want %t", src, cfg.Lifecycle.RebaseDrafts, want)
		}
	}
}
