package onboarding

import (
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// Marker ends the onboarding pull request's body.
const Marker = "<!-- porchbot:onboarding -->"

// Body is the onboarding pull request's description: what porchbot found,
// what merging and closing do, and how to change the file first.
func Body(repo string, f Findings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Welcome to porchbot! This pull request adds `.github/porchbot.yaml` to %s, the configuration "+
		"porchbot reads here, with every value at its default and a comment saying what it does.\n\n", mdquote.Code(repo))
	b.WriteString("### What porchbot found\n\n")
	if len(f.Packages) == 0 {
		fmt.Fprintf(&b, "- No kpt package on %s yet: start one with `/porch init <package>` in an issue once this is merged.\n",
			mdquote.Code(f.Branch))
	} else {
		fmt.Fprintf(&b, "- %s on %s: %s.\n", words.Count(len(f.Packages), "package", "packages"), mdquote.Code(f.Branch),
			codes(limitList(f.Packages, 20)))
	}
	if f.OrgPreset != "" {
		fmt.Fprintf(&b, "- The organisation's configuration, %s: the proposed file extends it, and lists what this "+
			"repository may set over it, commented out.\n", mdquote.Code(f.OrgPreset))
	}
	if len(f.Drafts) > 0 {
		fmt.Fprintf(&b, "- %s: %s. They are rendered and checked once porchbot is on.\n",
			words.Count(len(f.Drafts), "draft", "drafts"), codes(limitList(f.Drafts, 20)))
	}
	b.WriteString("\n### What happens next\n\n")
	b.WriteString("- **Merge** this pull request to turn porchbot on: it renders drafts, checks proposals for their " +
		"approvals, publishes revisions on merge and opens update pull requests when an upstream publishes.\n")
	b.WriteString("- **Change** the file on this branch first if your team needs other rules (approvers, " +
		"`publishOn`, render functions): docs/configuration.md lists every key.\n")
	b.WriteString("- **Close** it to keep porchbot out of this repository: porchbot does not open another one. " +
		"Adding `.github/porchbot.yaml` yourself later turns it on all the same.\n\n")
	b.WriteString(Marker + "\n")
	return b.String()
}

func codes(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		if strings.HasPrefix(n, "and ") {
			out[i] = n
			continue
		}
		out[i] = mdquote.Code(n)
	}
	return strings.Join(out, ", ")
}
