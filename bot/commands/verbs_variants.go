package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/bot/lifecycle/variant"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// maxVariantRows bounds the /porch variants table (a comment holds 65,536
// characters).
const maxVariantRows = 300

// VariantReporter is implemented by a Lifecycle that carries variants out:
// the state of every target of the repository's variants entries, planned
// and not acted on. Without it, variants replies that this server does not
// carry variants out.
type VariantReporter interface {
	Variants(ctx context.Context, s *core.Session) (*variant.Report, error)
}

// runVariants is /porch variants: a table of variant, target, downstream
// package, tracked revision and state.
func runVariants(ctx context.Context, cr *commentRun, _ Command) result {
	vr, can := cr.r.Lifecycle.(VariantReporter)
	if !can {
		return result{status: statusFailed, text: mdquote.Code(Prefix+" variants") + " is not available on this server: it carries no variants out."}
	}
	s, err := cr.session(ctx)
	if err != nil {
		return cr.fail(err)
	}
	rep, err := vr.Variants(ctx, s)
	if err != nil {
		return cr.fail(err)
	}
	return ok(renderVariants(s.Config.Variants, rep))
}

// renderVariants renders a report as markdown.
func renderVariants(entries []config.Variant, rep *variant.Report) string {
	if len(entries) == 0 && len(rep.Results) == 0 {
		return "No `variants:` entry in " + mdquote.Code(config.Path) + ": this repository fans no package out."
	}
	var b strings.Builder
	hidden := 0
	fmt.Fprintf(&b, "**Variants** of %s\n\n| variant | target | downstream package | tracked revision | state |\n|---|---|---|---|---|\n", mdquote.Code(rep.Upstream))
	for i, r := range rep.Results {
		if i == maxVariantRows {
			fmt.Fprintf(&b, "| … and %d more | | | | |\n", len(rep.Results)-maxVariantRows)
			break
		}
		a := r.Action
		variant := "gone (" + mdquote.Code(a.Owner.Package) + ")"
		if a.Variant >= 0 && a.Variant < len(entries) {
			v := entries[a.Variant]
			rev := "latest"
			if v.Upstream.Revision != config.LatestRevision {
				rev = fmt.Sprintf("v%d", v.Upstream.Revision)
			}
			variant = fmt.Sprintf("%s %s", mdquote.Code(fmt.Sprintf("variants[%d]", a.Variant)), mdquote.Code(v.Upstream.Package+"@"+rev))
		}
		pkg, tracked := "—", "—"
		if a.Package != "" {
			pkg = mdquote.Code(a.Package)
		}
		if r.Tracked > 0 {
			tracked = mdquote.CodeCell(packages.TagName(a.Owner.Package, r.Tracked))
		}
		state, target := mdquote.Quiet(r.State()), mdquote.Code(a.Target)
		if r.Hidden {
			hidden++
			state, target = strings.ReplaceAll(state, a.Target, "that repository"), "a repository you may not see"
		} else if r.PullRequest != 0 {
			state += fmt.Sprintf(" (%s#%d)", a.Target, r.PullRequest)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mdquote.Cell(variant), mdquote.Cell(target), mdquote.Cell(pkg), tracked, mdquote.Cell(state))
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "\n%d row(s) are of repositories not every reader of this repository can read: they are not named here.\n", hidden)
	}
	return b.String()
}
