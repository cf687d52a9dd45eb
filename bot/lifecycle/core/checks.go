package core

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/words"
)

// Check runs the bot reports.
const (
	RenderCheckName = "porchbot/render"
	ConfigCheckName = "porchbot/config"
)

// Check run conclusions the bot uses.
const (
	ConclusionSuccess = "success"
	ConclusionFailure = "failure"
	ConclusionNeutral = "neutral"
)

// Annotation levels (GitHub's annotation_level).
const (
	LevelFailure = "failure"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// GitHub's bounds on check run output, and porchbot's own.
const (
	// AnnotationsPerRequest is GitHub's cap per create or update request.
	AnnotationsPerRequest = 50
	// MaxAnnotations bounds the annotations of one check run (one create and
	// at most three updates); the rest are counted in the summary.
	MaxAnnotations = 4 * AnnotationsPerRequest
	// maxOutputRunes is GitHub's cap on output.summary and output.text.
	maxOutputRunes = 65535
	// maxAnnotationRunes bounds one annotation's message (GitHub: 64 KiB).
	maxAnnotationRunes = 4096
)

// CheckRunWriter is the part of the GitHub Checks API the check steps use
// (s.Hub): one create per check run, and an update per further batch of
// 50 annotations.
type CheckRunWriter interface {
	CreateCheckRun(ctx context.Context, owner, repo string, w hub.CheckRunWrite) (hub.CheckRun, error)
	UpdateCheckRun(ctx context.Context, owner, repo string, id int64, w hub.CheckRunWrite) (hub.CheckRun, error)
}

// Annotation is a check run annotation: a message on a file's line (and
// optionally columns) at the check run's head. Path is relative to the
// repository root; lines and columns are 1-based.
type Annotation struct {
	Path                   string
	StartLine, EndLine     int
	StartColumn, EndColumn int
	Level, Title, Message  string
	RawDetails             string
}

// CheckReport is the content of a completed check run.
type CheckReport struct {
	Name       string
	Conclusion string
	Title      string
	Summary    string
	// Text is the markdown details (the function table of a render).
	Text        string
	Annotations []Annotation
}

// CheckRequests turns a report into GitHub requests: the create (completed,
// with the first 50 annotations) and one update per further batch of 50.
// Annotations are sent most severe first; beyond MaxAnnotations they are
// dropped and the summary says how many. Summary and text are cut to
// GitHub's 65535 characters.
func CheckRequests(rep CheckReport, head plumbing.Hash, now time.Time) (hub.CheckRunWrite, []hub.CheckRunWrite) {
	anns := sortAnnotations(rep.Annotations)
	summary := rep.Summary
	if extra := len(anns) - MaxAnnotations; extra > 0 {
		anns = anns[:MaxAnnotations]
		summary += fmt.Sprintf("\n\n%d more annotation(s) not shown (porchbot sends at most %d per check run).", extra, MaxAnnotations)
	}
	title := mdquote.TruncateRunes(rep.Title, 1000, "…")
	summary = mdquote.TruncateRunes(summary, maxOutputRunes, "\n\n… (summary truncated)")
	text := mdquote.TruncateRunes(rep.Text, maxOutputRunes, "\n\n… (truncated: GitHub shows at most 65535 characters)")
	output := func(batch []Annotation) *hub.CheckOutput {
		o := &hub.CheckOutput{Title: title, Summary: summary, Text: text}
		for _, a := range batch {
			o.Annotations = append(o.Annotations, a.Hub())
		}
		return o
	}
	first := anns
	if len(first) > AnnotationsPerRequest {
		first = first[:AnnotationsPerRequest]
	}
	create := hub.CheckRunWrite{Name: rep.Name, HeadSHA: head.String(),
		Status: "completed", Conclusion: rep.Conclusion,
		StartedAt: now, CompletedAt: now, Output: output(first)}
	var updates []hub.CheckRunWrite
	for rest := anns[len(first):]; len(rest) > 0; {
		n := min(len(rest), AnnotationsPerRequest)
		updates = append(updates, hub.CheckRunWrite{Name: rep.Name, Output: output(rest[:n])})
		rest = rest[n:]
	}
	return create, updates
}

// PublishCheck reports a completed check run on head: one REST call, plus
// one per further 50 annotations.
func PublishCheck(ctx context.Context, api CheckRunWriter, repo Repo, head plumbing.Hash, rep CheckReport) (hub.CheckRun, error) {
	create, updates := CheckRequests(rep, head, time.Now().UTC())
	run, err := api.CreateCheckRun(ctx, repo.Owner, repo.Name, create)
	if err != nil {
		return hub.CheckRun{}, fmt.Errorf("create check run %s on %s: %w", rep.Name, words.ShortSHA(head.String()), err)
	}
	for i, u := range updates {
		if _, err := api.UpdateCheckRun(ctx, repo.Owner, repo.Name, run.ID, u); err != nil {
			return run, fmt.Errorf("check run %s on %s: annotations batch %d: %w", rep.Name, words.ShortSHA(head.String()), i+2, err)
		}
	}
	return run, nil
}

// Hub is the annotation as a check run write sends it: within GitHub's
// bounds (a line at least, message and details cut to 4096 characters,
// title to 255), columns only on a single line, as GitHub requires.
func (a Annotation) Hub() hub.CheckAnnotation {
	start := max(a.StartLine, 1)
	end := max(a.EndLine, start)
	level := a.Level
	if level == "" {
		level = LevelNotice
	}
	msg := a.Message
	if msg == "" {
		msg = a.Title
	}
	out := hub.CheckAnnotation{Path: a.Path, StartLine: start, EndLine: end,
		Level: level, Message: mdquote.TruncateRunes(msg, maxAnnotationRunes, "…"),
		Title:      mdquote.TruncateRunes(a.Title, 255, "…"),
		RawDetails: mdquote.TruncateRunes(a.RawDetails, maxAnnotationRunes, "…")}
	if a.StartColumn > 0 && start == end {
		out.StartColumn = a.StartColumn
		out.EndColumn = max(a.EndColumn, a.StartColumn)
	}
	return out
}

var levelRank = map[string]int{LevelFailure: 0, LevelWarning: 1, LevelNotice: 2, "": 2}

// sortAnnotations orders annotations most severe first, then by position,
// keeping the original order otherwise.
func sortAnnotations(in []Annotation) []Annotation {
	out := append([]Annotation(nil), in...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if levelRank[a.Level] != levelRank[b.Level] {
			return levelRank[a.Level] < levelRank[b.Level]
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.StartLine < b.StartLine
	})
	return out
}
