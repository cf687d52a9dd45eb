package rendercheck

import (
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/render"
	"github.com/porchbot/porchbot/internal/treediff"
	"github.com/porchbot/porchbot/internal/words"
)

// The porchbot/render report.

// renderFacts is everything the porchbot/render check says about one render.
type renderFacts struct {
	Package string // package name
	Dir     string // package directory in the repository
	// Head is the commit the check is reported on; Rendered the commit whose
	// content was rendered (its parent when the bot pushed a Render commit).
	Head, Rendered plumbing.Hash
	Pushed         bool
	// Missing: no Kptfile at Dir at Rendered. Deletion: yet the package is
	// on DeploymentBranch, so the commit deletes it (a deletion proposal).
	Missing          bool
	Deletion         bool
	DeploymentBranch string
	// Result and Err are render.Render's (Err: the pipeline failed, was
	// incomplete, or the package could not be read).
	Result *render.Result
	Err    error
	// Changes are the files the rendered result changes with respect to
	// the content at Rendered.
	Changes []treediff.Change
	// Saved: the render failed and Pushed is what it had rendered up to
	// the failure (render.pushOnFailure); Changes are its files.
	Saved bool
	// Loop: Rendered is the bot's own Render commit and rendering it again
	// changes it (a pipeline that is not idempotent); nothing was pushed.
	Loop bool
	// Files are the package's files at Head (for annotation lines).
	Files map[string][]byte
	// ExecHint explains which exec functions may run here.
	ExecHint string
}

// conclusion is the check's verdict: neutral for a missing package, failure
// for a failed or incomplete render or (check-only) committed files that
// differ from the rendered result, success otherwise.
func (f renderFacts) conclusion() string {
	switch {
	case f.Missing:
		return core.ConclusionNeutral
	case f.Err != nil, f.Loop, !f.Pushed && len(f.Changes) > 0:
		return core.ConclusionFailure
	}
	return core.ConclusionSuccess
}

// renderReport builds the porchbot/render check run (pure).
func renderReport(f renderFacts) core.CheckReport {
	rep := core.CheckReport{Name: core.RenderCheckName, Conclusion: f.conclusion()}
	var sum strings.Builder
	steps := []render.Step{}
	if f.Result != nil {
		steps = f.Result.Steps
	}
	switch {
	case f.Missing && f.Deletion:
		rep.Title = fmt.Sprintf("Deletion of %s: nothing to render", f.Package)
		fmt.Fprintf(&sum, "This commit deletes the package %s (it has no %s, and %s has the package): "+
			"there is nothing to render. Merging it removes the package from %s; its published revisions "+
			"(tags) are kept.\n", mdquote.Code(f.Package), mdquote.Code(f.Dir+"/Kptfile"), mdquote.Code(f.DeploymentBranch), mdquote.Code(f.DeploymentBranch))
	case f.Missing:
		rep.Title = fmt.Sprintf("Package %s not found", f.Package)
		fmt.Fprintf(&sum, "There is no %s at %s: nothing to render.\n", mdquote.Code(f.Dir+"/Kptfile"), f.Rendered)
	case f.Err != nil && f.Result != nil && len(f.Result.Skipped()) > 0 && !f.Result.Failed():
		n := len(f.Result.Skipped())
		rep.Title = fmt.Sprintf("Render of %s incomplete: %d exec function(s) not run", f.Package, n)
		fmt.Fprintf(&sum, "Pull requests from forks are rendered with porchbot's built-in functions only, never `exec`: "+
			"%d exec function(s) were skipped, so the rendered result cannot be verified. "+
			"Push the change to a branch of this repository to render it fully.\n", n)
	case f.Err != nil:
		rep.Title = fmt.Sprintf("Render of %s failed", f.Package)
		if failed := failedStep(steps); failed != nil {
			rep.Title = fmt.Sprintf("Render of %s failed: %s", f.Package, failed.Function())
		}
		fmt.Fprintf(&sum, "Rendering %s at %s failed:\n\n%s", mdquote.Code(f.Dir), f.Rendered, mdquote.Fence("Error: "+f.Err.Error()))
		if failed := failedStep(steps); failed != nil {
			i := 0
			for _, r := range errorResults(*failed) {
				if strings.Contains(f.Err.Error(), r.Message) {
					continue // said once, in the error above
				}
				if i == 10 {
					sum.WriteString("- …\n")
					break
				}
				i++
				fmt.Fprintf(&sum, "- %s\n", mdquote.Text(mdquote.TruncateRunes(ResultLine(r), 500, "…")))
			}
		}
		if f.ExecHint != "" && mentionsExec(steps) {
			fmt.Fprintf(&sum, "\n%s\n", f.ExecHint)
		}
		if f.Saved && f.Pushed {
			fmt.Fprintf(&sum, "\nAs the Kptfile's %s and %s ask, porchbot pushed %s (\"Render %s (failed)\") on top of %s: "+
				"what the render had rendered up to the failure, for debugging. Fix the pipeline and push again.\n",
				mdquote.Code("kpt.dev/save-on-render-failure"), mdquote.Code("render.pushOnFailure"),
				words.ShortSHA(f.Head.String()), mdquote.Text(f.Package), words.ShortSHA(f.Rendered.String()))
		}
	case f.Loop:
		rep.Title = fmt.Sprintf("Render of %s is not stable", f.Package)
		fmt.Fprintf(&sum, "%s is porchbot's own render commit, yet rendering it again changes %d file(s): "+
			"the pipeline is not idempotent. porchbot does not push another commit (it would never stop).\n",
			words.ShortSHA(f.Rendered.String()), len(f.Changes))
	case f.Pushed:
		rep.Title = fmt.Sprintf("Rendered %s: pushed %d changed file(s)", f.Package, len(f.Changes))
		fmt.Fprintf(&sum, "The pipeline passed. The rendered result of %s differed from what was pushed, "+
			"so porchbot pushed %s (\"Render %s\") on top.\n", words.ShortSHA(f.Rendered.String()), words.ShortSHA(f.Head.String()), mdquote.Text(f.Package))
	case len(f.Changes) > 0:
		rep.Title = fmt.Sprintf("%s is not rendered: %d file(s) differ", f.Package, len(f.Changes))
		fmt.Fprintf(&sum, "The pipeline passed, but the committed files are not the rendered result. "+
			"Run %s and commit the result.\n", mdquote.Code("kpt fn render "+f.Dir))
	default:
		rep.Title = fmt.Sprintf("%s is rendered", f.Package)
		fmt.Fprintf(&sum, "The pipeline passed and the committed files are the rendered result.\n")
	}
	if f.Result != nil && len(steps) > 0 {
		fmt.Fprintf(&sum, "\n%s\n", countSteps(steps, f.Result.Packages))
	}
	if f.Result != nil && f.Result.Kpt != "" && !f.Missing {
		fmt.Fprintf(&sum, "\nRendered as kpt %s renders (%s in %s).\n", f.Result.Kpt, mdquote.Code("render.kpt"), mdquote.Code(".github/porchbot.yaml"))
	}
	if len(f.Changes) > 0 {
		sum.WriteString("\n" + changesList(f.Changes, f.Dir, 50))
	}
	rep.Summary = sum.String()

	var text strings.Builder
	if len(steps) > 0 {
		text.WriteString("### Functions\n\n")
		text.WriteString(StepsTable(f.Dir, steps))
		text.WriteString(stderrDetails(f.Dir, steps))
	}
	if len(f.Changes) > 0 {
		text.WriteString("\n### Files\n\n" + changesList(f.Changes, f.Dir, 1000))
	}
	rep.Text = text.String()
	rep.Annotations = renderAnnotations(f)
	return rep
}

func failedStep(steps []render.Step) *render.Step {
	for i := range steps {
		if steps[i].Status == render.StepFailed {
			return &steps[i]
		}
	}
	return nil
}

func mentionsExec(steps []render.Step) bool {
	for _, s := range steps {
		if s.Exec != "" {
			return true
		}
	}
	return false
}

// errorResults are a step's error results, or none.
func errorResults(s render.Step) []*framework.Result {
	var out []*framework.Result
	for _, r := range s.Results {
		if r != nil && r.Severity == framework.Error {
			out = append(out, r)
		}
	}
	return out
}

// countSteps is "N functions in M packages: X passed, Y failed, Z skipped.".
func countSteps(steps []render.Step, pkgs int) string {
	n := map[render.StepStatus]int{}
	for _, s := range steps {
		n[s.Status]++
	}
	out := words.Count(len(steps), "function", "functions") + " in " + words.Count(pkgs, "package", "packages") +
		fmt.Sprintf(": %d passed", n[render.StepOK])
	if n[render.StepFailed] > 0 {
		out += fmt.Sprintf(", %d failed", n[render.StepFailed])
	}
	if n[render.StepSkipped] > 0 {
		out += fmt.Sprintf(", %d skipped", n[render.StepSkipped])
	}
	return out + "."
}

// changesList lists changed files as markdown bullets, at most max.
func changesList(changes []treediff.Change, dir string, limit int) string {
	var b strings.Builder
	for i, c := range changes {
		if i == limit {
			fmt.Fprintf(&b, "- … and %d more\n", len(changes)-limit)
			break
		}
		fmt.Fprintf(&b, "- %s (%s)\n", mdquote.Code(path.Join(dir, c.Path)), c.Kind)
	}
	return b.String()
}

var stepStatusText = map[render.StepStatus]string{
	render.StepOK: "✅ passed", render.StepFailed: "❌ failed", render.StepSkipped: "⏭️ skipped",
}

// maxResultsPerStep bounds the results listed in one row of the table.
const maxResultsPerStep = 20

// StepsTable is the markdown table of a render's functions, one row per
// function in execution order: package path (in the repository, the root
// package being dir), function (image or exec, and the catalog release it
// ran as when the image names no one release), mutator or validator,
// status, duration and result messages (first, how latest was resolved).
func StepsTable(dir string, steps []render.Step) string {
	var b strings.Builder
	b.WriteString("| Package | Function | Kind | Status | Duration | Results |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, s := range steps {
		fn := mdquote.CodeCell(s.Function())
		if s.Name != "" {
			fn += " (" + mdquote.Text(s.Name) + ")"
		}
		if s.Release != "" && !strings.HasSuffix(s.Image, ":"+s.Release) {
			fn += " ran as " + mdquote.CodeCell(s.Release)
		}
		kind := string(s.Kind)
		if s.Guardrail {
			kind += " (repository guardrail)"
		}
		status := stepStatusText[s.Status]
		if status == "" {
			status = mdquote.Text(string(s.Status))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", mdquote.CodeCell(path.Join(dir, s.Package)), fn, kind, status,
			formatStepDuration(s), stepResultsCell(s))
	}
	return b.String()
}

func stepResultsCell(s render.Step) string {
	var lines []string
	seenMsg := false
	for i, r := range s.Results {
		if r == nil {
			continue
		}
		if i == maxResultsPerStep {
			lines = append(lines, fmt.Sprintf("… and %d more", len(s.Results)-maxResultsPerStep))
			break
		}
		if r.Message == s.Message {
			seenMsg = true
		}
		lines = append(lines, mdquote.Text(mdquote.TruncateRunes(ResultLine(r), 500, "…")))
	}
	if s.Message != "" && !seenMsg {
		lines = append([]string{mdquote.Text(mdquote.TruncateRunes(s.Message, 500, "…"))}, lines...)
	}
	if s.ReleaseNote != "" {
		lines = append([]string{mdquote.Text("[info] " + s.ReleaseNote)}, lines...)
	}
	return strings.Join(lines, "<br>")
}

// ResultLine renders one function result on a line: severity, message and
// what it refers to.
func ResultLine(r *framework.Result) string {
	sev := string(r.Severity)
	if sev == "" {
		sev = string(framework.Info)
	}
	var where []string
	if r.ResourceRef != nil && (r.ResourceRef.Kind != "" || r.ResourceRef.Name != "") {
		where = append(where, strings.TrimSpace(r.ResourceRef.Kind+" "+r.ResourceRef.Name))
	}
	if r.File != nil && r.File.Path != "" {
		where = append(where, r.File.Path)
	}
	if r.Field != nil && r.Field.Path != "" {
		where = append(where, r.Field.Path)
	}
	line := "[" + sev + "] " + r.Message
	if len(where) > 0 {
		line += " (" + strings.Join(where, ", ") + ")"
	}
	return line
}

func formatStepDuration(s render.Step) string {
	if s.Status == render.StepSkipped {
		return "—"
	}
	d := s.Duration.Round(time.Millisecond)
	if d == 0 {
		return "<1ms"
	}
	return d.String()
}

// stderrDetails shows the stderr of failed functions, collapsed.
func stderrDetails(dir string, steps []render.Step) string {
	var b strings.Builder
	for _, s := range steps {
		if strings.TrimSpace(s.Stderr) == "" || s.Stderr == s.Message {
			continue
		}
		fmt.Fprintf(&b, "\n<details><summary>stderr of <code>%s</code> (package <code>%s</code>)</summary>\n\n%s\n</details>\n",
			mdquote.HTML(s.Function()), mdquote.HTML(path.Join(dir, s.Package)), mdquote.Fence(mdquote.TruncateRunes(s.Stderr, 8000, "\n…")))
	}
	return b.String()
}

var severityLevel = map[framework.Severity]string{
	framework.Error: core.LevelFailure, framework.Warning: core.LevelWarning, framework.Info: core.LevelNotice,
}

// renderAnnotations turns results that name a file (or a resource found in
// one) into annotations at the field's line, failed or skipped functions
// without such results into annotations on their Kptfile entry, a render
// error outside any function into one on the Kptfile, and (check-only)
// committed files that differ from the rendered result into one each.
func renderAnnotations(f renderFacts) []core.Annotation {
	var out []core.Annotation
	if f.Missing {
		return nil
	}
	var steps []render.Step
	if f.Result != nil {
		steps = f.Result.Steps
	}
	occurrence := map[string]int{}
	docs := core.NewDocCache(f.Files)
	for _, s := range steps {
		key := s.Package + "\x00" + string(s.Kind) + "\x00" + s.Function()
		nth := occurrence[key]
		occurrence[key]++
		title := fmt.Sprintf("%s %s", s.Kind, s.Function())
		placed := false
		for _, r := range s.Results {
			if r == nil {
				continue
			}
			rel, line, col, ok := locateResult(docs, s.Package, r)
			if !ok {
				continue
			}
			level := severityLevel[r.Severity]
			if level == "" {
				level = core.LevelNotice
			}
			msg := r.Message
			if r.Field != nil && r.Field.Path != "" {
				msg += " (field " + r.Field.Path + ")"
			}
			out = append(out, core.Annotation{Path: path.Join(f.Dir, rel), StartLine: line, EndLine: line, StartColumn: col,
				EndColumn: col, Level: level, Title: title, Message: msg})
			placed = true
		}
		if placed || s.Status == render.StepOK || s.Guardrail {
			continue
		}
		kf := path.Join(s.Package, packages.KptfileName)
		data, ok := f.Files[kf]
		if !ok {
			continue
		}
		line, found := core.FunctionPosition(data, string(s.Kind), s.Image, s.Exec, nth)
		if !found {
			line = 1
		}
		level := core.LevelFailure
		if s.Status == render.StepSkipped {
			level = core.LevelWarning
		}
		msg := s.Message
		if errs := errorResults(s); len(errs) > 0 {
			lines := make([]string, len(errs))
			for i, r := range errs {
				lines[i] = r.Message
			}
			msg = strings.Join(lines, "\n")
		}
		if msg == "" {
			msg = fmt.Sprintf("%s %s", s.Function(), s.Status)
		}
		out = append(out, core.Annotation{Path: path.Join(f.Dir, kf), StartLine: line, EndLine: line, Level: level,
			Title: title, Message: msg, RawDetails: s.Stderr})
	}
	if f.Err != nil && failedStep(steps) == nil && (f.Result == nil || len(f.Result.Skipped()) == 0) {
		file, line := renderErrorPosition(f)
		if _, ok := f.Files[file]; ok {
			out = append(out, core.Annotation{Path: path.Join(f.Dir, file), StartLine: line, EndLine: line,
				Level: core.LevelFailure, Title: "render failed", Message: f.Err.Error()})
		}
	}
	if !f.Pushed && f.Err == nil {
		for _, c := range f.Changes {
			if _, ok := f.Files[c.Path]; !ok || c.Kind == "added" {
				continue
			}
			msg := "This file is not the rendered result: rendering the package changes it."
			if c.Kind == "deleted" {
				msg = "This file is not the rendered result: rendering the package deletes it."
			}
			out = append(out, core.Annotation{Path: path.Join(f.Dir, c.Path), StartLine: 1, EndLine: 1,
				Level: core.LevelFailure, Title: "not rendered", Message: msg})
		}
	}
	return out
}

// locateResult finds the file (relative to the package), line and column a
// result refers to among the package's files. File paths are tried
// relative to the function's package, then to the root package; a result
// naming only a resource is looked up by kind and name.
func locateResult(docs *core.DocCache, stepPkg string, r *framework.Result) (rel string, line, col int, ok bool) {
	field := ""
	if r.Field != nil {
		field = r.Field.Path
	}
	index := -1
	var candidates []string
	if r.File != nil && r.File.Path != "" {
		index = r.File.Index
		candidates = append(candidates, path.Join(stepPkg, r.File.Path), path.Clean(r.File.Path))
	}
	for _, c := range candidates {
		if ds, found := docs.Docs(c); found {
			line, col = core.PositionInFile(ds, index, r.ResourceRef, field)
			return c, line, col, true
		}
	}
	if r.ResourceRef == nil || r.ResourceRef.Kind == "" || r.ResourceRef.Name == "" {
		return "", 0, 0, false
	}
	for _, name := range core.SortedPaths(docs.Files) {
		if !isYAMLName(name) {
			continue
		}
		ds, _ := docs.Docs(name)
		for _, d := range ds {
			if core.DocMatches(d, r.ResourceRef) {
				line, col, _ = core.FieldPosition(d, field)
				return name, line, col, true
			}
		}
	}
	return "", 0, 0, false
}

func isYAMLName(name string) bool {
	base := path.Base(name)
	return base == packages.KptfileName || strings.HasSuffix(base, ".yaml") || strings.HasSuffix(base, ".yml") ||
		strings.HasSuffix(base, ".json")
}
