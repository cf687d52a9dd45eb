package rendercheck

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// CheckOutcome is a check run the bot reported.
type CheckOutcome struct {
	Name       string
	Head       plumbing.Hash
	CheckRunID int64
	Conclusion string
	// Problems are the configuration's problems, positioned.
	Problems []config.Problem
}

// ConfigCheck judges the .github/porchbot.yaml at a pull request head
// (config.Parse with the server's limits) and reports porchbot/config on
// head: success when it parses (or is absent: the defaults), failure with
// one annotation per problem at its line and column otherwise. The file is
// only judged here; it takes effect once merged into the deployment branch.
func ConfigCheck(ctx context.Context, s *core.Session, api core.CheckRunWriter, head plumbing.Hash, limits config.ServerLimits) (*CheckOutcome, error) {
	data, ok, err := s.ReadFile(ctx, head, config.Path)
	if err != nil {
		return nil, fmt.Errorf("config check at %s: %w", words.ShortSHA(head.String()), err)
	}
	var rep core.CheckReport
	out := &CheckOutcome{Name: core.ConfigCheckName, Head: head}
	if !ok {
		rep = core.CheckReport{Name: core.ConfigCheckName, Conclusion: core.ConclusionSuccess,
			Title: "No repository configuration: the defaults apply",
			Summary: fmt.Sprintf("There is no %s at %s: once merged, the repository runs with the defaults "+
				"(within the server's limits).\n", mdquote.Code(config.Path), head)}
	} else {
		cfg, _, perr := s.ParseConfig(ctx, data, limits)
		out.Problems = configProblems(perr)
		rep = configReport(cfg, perr, head, s.DeploymentBranch)
		if perr != nil {
			rep.Summary += fmt.Sprintf("\nIn force on %s now: %s.\n", mdquote.Code(s.DeploymentBranch), s.ConfigVersion())
		}
	}
	out.Conclusion = rep.Conclusion
	run, err := core.PublishCheck(ctx, api, s.Repo, head, rep)
	out.CheckRunID = run.ID
	if err != nil {
		return out, fmt.Errorf("config check: %w", err)
	}
	s.Log.WithFields(map[string]any{"ref": head.String(), "conclusion": out.Conclusion, "problems": len(out.Problems)}).
		Info("repository config checked")
	return out, nil
}

// ReportBrokenDeploymentConfig reports a failing porchbot/config check on
// the deployment branch's head when the configuration there is broken
// (s.ConfigErr), saying the last good configuration stays in force. It does
// nothing (nil, nil) when the configuration is fine.
func ReportBrokenDeploymentConfig(ctx context.Context, s *core.Session, api core.CheckRunWriter) (*CheckOutcome, error) {
	if s.ConfigErr == nil {
		return nil, nil
	}
	head := s.DeploymentHead
	if head.IsZero() {
		head = s.ConfigSHA
	}
	if head.IsZero() {
		return nil, fmt.Errorf("broken config reported without a deployment head: %w", s.ConfigErr)
	}
	problems := configProblems(s.ConfigErr)
	rep := core.CheckReport{Name: core.ConfigCheckName, Conclusion: core.ConclusionFailure,
		Title: fmt.Sprintf("%s on %s is broken: the last good configuration stays in force (%s)", config.Path,
			s.DeploymentBranch, lastGoodTitle(s.ConfigInForce))}
	var sum strings.Builder
	fmt.Fprintf(&sum, "%s at %s on %s does not parse (%s). Until the file is fixed, porchbot runs this repository "+
		"with the newest version in the branch's history that passes: %s.\n\n",
		mdquote.Code(config.Path), head, mdquote.Code(s.DeploymentBranch), words.Count(max(len(problems), 1), "problem", "problems"), s.ConfigVersion())
	sum.WriteString(problemsList(problems, s.ConfigErr))
	rep.Summary = sum.String()
	rep.Annotations = ConfigAnnotations(problems)
	out := &CheckOutcome{Name: core.ConfigCheckName, Head: head, Conclusion: rep.Conclusion, Problems: problems}
	run, err := core.PublishCheck(ctx, api, s.Repo, head, rep)
	out.CheckRunID = run.ID
	if err != nil {
		return out, fmt.Errorf("report broken config: %w", err)
	}
	s.Log.WithFields(map[string]any{"ref": s.DeploymentBranch, "problems": len(problems), "config_in_force": s.ConfigVersion()}).
		Warn("reported a broken repository config")
	return out, nil
}

// lastGoodTitle names the commit whose configuration is in force, shortly.
func lastGoodTitle(inForce plumbing.Hash) string {
	if inForce.IsZero() {
		return "the defaults"
	}
	return "as of " + words.ShortSHA(inForce.String())
}

// configReport is the porchbot/config check of a parsed file (pure).
func configReport(cfg *config.Config, err error, head plumbing.Hash, deploymentBranch string) core.CheckReport {
	rep := core.CheckReport{Name: core.ConfigCheckName}
	if err != nil {
		problems := configProblems(err)
		rep.Conclusion = core.ConclusionFailure
		rep.Title = fmt.Sprintf("%s has %s", config.Path, words.Count(max(len(problems), 1), "problem", "problems"))
		rep.Summary = fmt.Sprintf("%s at %s is not a valid configuration; merging it would leave the repository "+
			"on its last good configuration.\n\n%s", mdquote.Code(config.Path), head, problemsList(problems, err))
		rep.Annotations = ConfigAnnotations(problems)
		return rep
	}
	rep.Conclusion = core.ConclusionSuccess
	rep.Title = fmt.Sprintf("%s is valid", config.Path)
	var b strings.Builder
	fmt.Fprintf(&b, "%s at %s is a valid configuration within the server's limits. It takes effect once merged", mdquote.Code(config.Path), head)
	if deploymentBranch != "" {
		fmt.Fprintf(&b, " into %s", mdquote.Code(deploymentBranch))
	}
	b.WriteString(".\n\n")
	if cfg != nil {
		b.WriteString(configSummary(cfg))
	}
	rep.Summary = b.String()
	return rep
}

// configSummary lists the settings that matter most, for reviewers.
func configSummary(cfg *config.Config) string {
	var b strings.Builder
	root := cfg.Packages.Root
	if root == "" {
		root = "."
	}
	branch := cfg.Packages.DeploymentBranch
	if branch == "" {
		branch = "(the default branch)"
	}
	approvers := make([]string, len(cfg.Approvals.Approvers))
	for i, a := range cfg.Approvals.Approvers {
		approvers[i] = a.String()
	}
	who := "anyone with write access"
	if len(approvers) > 0 {
		who = strings.Join(approvers, ", ")
	}
	fmt.Fprintf(&b, "| Setting | Value |\n|---|---|\n")
	fmt.Fprintf(&b, "| packages.root | %s |\n", mdquote.CodeCell(root))
	fmt.Fprintf(&b, "| packages.deploymentBranch | %s |\n", mdquote.Text(branch))
	fmt.Fprintf(&b, "| lifecycle.publishOn | %s |\n", mdquote.CodeCell(cfg.Lifecycle.PublishOn))
	fmt.Fprintf(&b, "| approvals | %d from %s (self-approval %v) |\n", cfg.Approvals.Required, mdquote.Text(who), cfg.Approvals.AllowSelfApproval)
	fmt.Fprintf(&b, "| render.onDraftPush | %s |\n", mdquote.CodeCell(cfg.Render.OnDraftPush))
	if cfg.Render.PushOnFailure {
		fmt.Fprintf(&b, "| render.pushOnFailure | %s |\n", mdquote.CodeCell("true"))
	}
	fmt.Fprintf(&b, "| render guardrails | %d mutator(s), %d validator(s) |\n", len(cfg.Render.Mutators), len(cfg.Render.Validators))
	fmt.Fprintf(&b, "| functions.exec | %d declared |\n", len(cfg.Functions.Exec))
	fmt.Fprintf(&b, "| variants | %d |\n", len(cfg.Variants))
	return b.String()
}

// configProblems extracts the positioned problems of a config error.
func configProblems(err error) []config.Problem {
	var ve *config.ValidationError
	if errors.As(err, &ve) {
		return ve.Problems
	}
	return nil
}

// problemsList lists problems as "file:line:col: message" bullets (or the
// error itself when it has no positions).
func problemsList(problems []config.Problem, err error) string {
	if len(problems) == 0 {
		if err == nil {
			return ""
		}
		return mdquote.Fence(err.Error())
	}
	var b strings.Builder
	for i, p := range problems {
		if i == 100 {
			fmt.Fprintf(&b, "- … and %d more\n", len(problems)-100)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", mdquote.Code(fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Column)), mdquote.Text(p.Message))
	}
	return b.String()
}

// ConfigAnnotations puts each problem at its line and column.
func ConfigAnnotations(problems []config.Problem) []core.Annotation {
	out := make([]core.Annotation, 0, len(problems))
	for _, p := range problems {
		file := p.File
		if file == "" {
			file = config.Path
		}
		line := max(p.Line, 1)
		title := "invalid configuration"
		if p.Field != "" {
			title = p.Field
		}
		out = append(out, core.Annotation{Path: file, StartLine: line, EndLine: line, StartColumn: p.Column,
			EndColumn: p.Column, Level: core.LevelFailure, Title: title, Message: p.Message})
	}
	return out
}
