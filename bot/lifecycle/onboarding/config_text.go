package onboarding

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/porchbot/porchbot/internal/config"
)

// ConfigText is the .github/porchbot.yaml the onboarding pull request
// proposes: every key at the value in force without the file (the
// defaults within the server's limits), each with a comment saying what
// it does, and what porchbot found in the repository. Parsing it gives
// config.DefaultFor(limits) exactly, so merging it as it is changes
// nothing but turning porchbot on. When the organisation has its own
// porchbot.yaml (Findings.OrgPreset), the file extends it instead and
// lists the keys commented out, each a value the repository may set over
// the organisation's.
func ConfigText(repo string, limits config.ServerLimits, f Findings) string {
	d := config.DefaultFor(limits)
	var head, keys strings.Builder
	b := &head
	fmt.Fprintf(b, "# porchbot's configuration for %s (docs/configuration.md).\n", repo)
	b.WriteString("# Merging this file turns porchbot on here. Every value below is the one in\n")
	b.WriteString("# force without it: change what your team needs before merging.\n")
	if len(f.Packages) > 0 {
		fmt.Fprintf(b, "#\n# Packages found on %s: %s.\n", f.Branch, commentList(f.Packages))
	}
	if len(f.Drafts) > 0 {
		fmt.Fprintf(b, "# Drafts found: %s.\n", commentList(f.Drafts))
	}
	fmt.Fprintf(b, "apiVersion: %s\nkind: %s\n", config.APIVersion, config.Kind)
	if f.OrgPreset != "" {
		fmt.Fprintf(b, "extends: [org]             # %s: the organisation's rules\n", commentList([]string{f.OrgPreset}))
		b.WriteString("# Each key below, uncommented, overrides the organisation's value here\n")
		b.WriteString("# (the values shown are porchbot's defaults).\n")
	}
	b = &keys
	b.WriteString("packages:\n")
	b.WriteString("  root: .                  # the directory packages are named from\n")
	b.WriteString("  # deploymentBranch: main # proposals merge into and revisions are tagged on it (default: the default branch)\n")
	fmt.Fprintf(b, "  deployment: %t         # Porch's \"deployment repository\" flag: packages here are deployed as they are\n", d.Packages.Deployment)
	b.WriteString("lifecycle:\n")
	fmt.Fprintf(b, "  publishOn: %s           # merge: tag a revision when its proposal merges; never: only on /porch publish\n", d.Lifecycle.PublishOn)
	fmt.Fprintf(b, "  releases: %t            # a GitHub release per revision, with its notes\n", d.Lifecycle.Releases)
	fmt.Fprintf(b, "  rebaseDrafts: %t        # a published revision rebases the package's other drafts on it\n", d.Lifecycle.RebaseDrafts)
	fmt.Fprintf(b, "  deletionWithDownstreams: %s  # deleting a package others track needs an approver's /porch approve --orphan-downstreams; allow: it does not\n",
		d.Lifecycle.DeletionWithDownstreams)
	b.WriteString("approvals:\n")
	fmt.Fprintf(b, "  required: %d              # approvals a proposal needs to be published\n", d.Approvals.Required)
	b.WriteString("  approvers: []            # who may approve: logins and \"@org/team\"; empty: anyone with write access\n")
	fmt.Fprintf(b, "  allowSelfApproval: %t   # may a proposal's author approve it?\n", d.Approvals.AllowSelfApproval)
	b.WriteString("render:\n")
	fmt.Fprintf(b, "  onDraftPush: %s        # commit: push the rendered package onto the draft; check: only report\n", d.Render.OnDraftPush)
	b.WriteString("updates:                  # the pull requests porchbot opens when an upstream publishes\n")
	fmt.Fprintf(b, "  labels: [%s]\n", strings.Join(d.Updates.Labels, ", "))
	fmt.Fprintf(b, "  prConcurrentLimit: %d     # at most this many open at once\n", d.Updates.PRConcurrentLimit)
	fmt.Fprintf(b, "  automerge: %t\n", d.Updates.Automerge)
	b.WriteString("dashboard:\n")
	fmt.Fprintf(b, "  enabled: %t              # the \"Package dashboard\" issue\n", d.Dashboard.Enabled)
	if f.OrgPreset == "" {
		return head.String() + keys.String()
	}
	return head.String() + commentOut(keys.String())
}

// commentOut makes every line of text a comment.
func commentOut(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "# " + l
		}
	}
	return strings.Join(lines, "")
}

// commentList is names for a comment line: a name holding anything but
// printable characters (a newline would end the comment) is quoted.
func commentList(names []string) string {
	out := limitList(names, 20)
	for i, n := range out {
		if strings.IndexFunc(n, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
			out[i] = strconv.Quote(n)
		}
	}
	return strings.Join(out, ", ")
}

// limitList is at most n of names, and how many more there are.
func limitList(names []string, n int) []string {
	if len(names) <= n {
		return names
	}
	out := append([]string{}, names[:n]...)
	return append(out, fmt.Sprintf("and %d more", len(names)-n))
}
