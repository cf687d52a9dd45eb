package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/bot/lifecycle/approval"
	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/packages"
	"github.com/porchbot/porchbot/internal/words"
)

// The story's cast and props.
const (
	org       = "acme"
	catalog   = "acme/catalog"
	edge      = "acme/edge-1"
	pkg       = "network/upf"
	workspace = "v1"
	draft     = "drafts/" + pkg + "/" + workspace
	tag       = pkg + "/v1"
	edgePkg   = "upf"
	edgeDraft = "drafts/" + edgePkg + "/v1"
	botLogin  = approval.DefaultBotLogin
)

// repoConfig is the catalog's .github/porchbot.yaml: proposals need one
// approval from the platform team, and each revision gets a release.
const repoConfig = `apiVersion: porchbot.dev/v1alpha1
kind: RepositoryConfig
lifecycle:
  publishOn: merge
  releases: true
approvals:
  required: 1
  approvers: ["@acme/platform"]
`

// deployment is the UPF alice writes: no namespace, no labels — the
// pipeline adds them.
const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: upf
spec:
  replicas: 2
  selector:
    matchLabels:
      app: upf
  template:
    metadata:
      labels:
        app: upf
    spec:
      containers:
        - name: upf
          image: registry.example.com/nephio/upf:1.4.2
          ports:
            - containerPort: 8805
              name: pfcp
`

// pipeline is the Kptfile pipeline alice adds.
const pipeline = `pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: upf
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/part-of: user-plane
`

// Step is one step of the story and what it cost.
type Step struct {
	Title string
	// Short names the step in tables.
	Short string
	Usage Usage
}

// Result is what the story left behind, for whoever explores it next.
type Result struct {
	Steps        []Step
	Issue        string // the catalog issue the commands were written on
	PullRequest  string // the proposal's URL
	Release      string // the release's URL
	EdgeDraft    string // the downstream draft's URL
	CatalogClone string // alice's clone of the catalog
}

// story runs the steps against a World.
type story struct {
	w   *World
	ctx context.Context
	n   *narrator
	res *Result

	web      string // the forge's web root
	issue    int    // the catalog issue alice writes her commands on
	pr       *github.PullRequest
	mergeSHA string
}

// Story tells the package's life from an empty catalog to a downstream
// clone, writing the transcript to out. It fails at the first step that
// does not happen as expected.
func Story(ctx context.Context, w *World, out io.Writer) (*Result, error) {
	s := &story{w: w, ctx: ctx, n: &narrator{w: out}, res: &Result{}, web: w.Forge.BaseURL()}
	steps := []struct {
		title, short string
		run          func() error
	}{
		{"alice creates the upstream catalog " + catalog, "create the catalog", s.createCatalog},
		{"alice asks porchbot for a new package: /porch init " + pkg, "/porch init", s.initPackage},
		{"alice writes the package and pushes it to the draft", "push to the draft → render", s.pushDraft},
		{"alice proposes the draft: /porch propose " + pkg + "/" + workspace, "/porch propose", s.propose},
		{"bob, of @acme/platform, approves", "review: approve", s.approve},
		{"alice merges; porchbot publishes " + tag, "merge → publish", s.merge},
		{"alice clones " + catalog + "/" + pkg + "@v1 into " + edge, "/porch clone (downstream)", s.cloneDownstream},
	}
	for _, st := range steps {
		s.n.heading(st.title)
		before := w.Counts()
		if err := st.run(); err != nil {
			return s.res, fmt.Errorf("step %d (%s): %w", s.n.step, st.title, err)
		}
		if err := w.Settle(ctx); err != nil {
			return s.res, fmt.Errorf("step %d (%s): %w", s.n.step, st.title, err)
		}
		s.res.Steps = append(s.res.Steps, Step{Title: st.title, Short: st.short, Usage: w.Counts().Since(before)})
	}
	s.summary()
	return s.res, nil
}

// settle waits for porchbot to finish what the last action started.
func (s *story) settle() error { return s.w.Settle(s.ctx) }

func (s *story) alice() *github.Client { return s.w.Client("alice") }

func (s *story) url(repo string, parts ...string) string {
	return s.web + "/" + repo + strings.Join(append([]string{""}, parts...), "/")
}

// 1. The catalog.
func (s *story) createCatalog() error {
	repo, _, err := s.alice().Repositories.Create(s.ctx, org, &github.Repository{Name: github.String("catalog"),
		Description: github.String("Upstream kpt packages of the acme platform team"), AutoInit: github.Bool(true)})
	if err != nil {
		return fmt.Errorf("POST /orgs/%s/repos: %w", org, err)
	}
	s.n.act("alice", "POST /orgs/%s/repos {name: catalog, auto_init: true}", org)
	s.n.more("→ %s <%s>, default branch %s", repo.GetFullName(), repo.GetHTMLURL(), repo.GetDefaultBranch())
	if err := s.settle(); err != nil {
		return err
	}
	if !s.delivered("installation_repositories", "") {
		return errors.New("porchbot was not told that its installation on acme now covers acme/catalog")
	}
	s.n.act("porchbot", "installation_repositories: the App's installation on %s now covers %s", org, catalog)

	owner, name, _ := strings.Cut(catalog, "/")
	res, _, err := s.alice().Repositories.CreateFile(s.ctx, owner, name, ".github/porchbot.yaml", &github.RepositoryContentFileOptions{
		Message: github.String("Register the catalog with porchbot"), Content: []byte(repoConfig)})
	if err != nil {
		return fmt.Errorf("PUT contents .github/porchbot.yaml: %w", err)
	}
	s.n.act("alice", "commits .github/porchbot.yaml to main (%s) through the contents API:", words.ShortSHA(res.GetSHA()))
	s.n.block("", repoConfig)
	if err := s.settle(); err != nil {
		return err
	}
	if run, err := s.checkRun(catalog, res.GetSHA(), core.ConfigCheckName, false); err != nil {
		return err
	} else if run != nil && run.GetConclusion() != "success" {
		return fmt.Errorf("porchbot judged the config: %s %s", run.GetConclusion(), run.GetOutput().GetTitle())
	}
	s.n.act("porchbot", "reads the config from main: approvals by @acme/platform, a release per revision")
	return nil
}

// 2. /porch init.
func (s *story) initPackage() error {
	owner, name, _ := strings.Cut(catalog, "/")
	issue, _, err := s.alice().Issues.Create(s.ctx, owner, name, &github.IssueRequest{
		Title: github.String("New package: " + pkg), Body: github.String("The user plane function, for every edge site.")})
	if err != nil {
		return fmt.Errorf("open an issue: %w", err)
	}
	s.issue = issue.GetNumber()
	s.res.Issue = issue.GetHTMLURL()
	s.n.act("alice", "opens issue #%d %q <%s>", issue.GetNumber(), issue.GetTitle(), issue.GetHTMLURL())
	reply, err := s.command(catalog, s.issue, "alice", `/porch init `+pkg+` --description "User plane function"`)
	if err != nil {
		return err
	}
	if !strings.Contains(reply, draft) {
		return fmt.Errorf("porchbot's reply does not name the draft branch %s:\n%s", draft, reply)
	}
	br, _, err := s.alice().Repositories.GetBranch(s.ctx, owner, name, draft, 0)
	if err != nil {
		return fmt.Errorf("no draft branch %s: %w", draft, err)
	}
	s.n.act("porchbot", "created branch %s at %s <%s>", draft, words.ShortSHA(br.GetCommit().GetSHA()), s.url(catalog, "tree", draft))
	files, err := s.tree(catalog, br.GetCommit().GetSHA(), pkg)
	if err != nil {
		return err
	}
	s.n.more("holding %s (kpt pkg init)", strings.Join(files, ", "))
	return nil
}

// 3. alice's push, porchbot's render.
func (s *story) pushDraft() error {
	dir, err := s.w.Clone(s.ctx, "alice", catalog, "catalog")
	if err != nil {
		return err
	}
	s.res.CatalogClone = dir
	if _, err := s.w.Git(s.ctx, dir, "switch", "-q", draft); err != nil {
		return err
	}
	s.n.act("alice", "git clone %s/%s.git && git switch %s", s.web, catalog, draft)
	kptfile := filepath.Join(dir, filepath.FromSlash(pkg), "Kptfile")
	kf, err := os.ReadFile(kptfile)
	if err != nil {
		return fmt.Errorf("the draft has no Kptfile: %w", err)
	}
	if strings.Contains(string(kf), "\npipeline:") {
		return fmt.Errorf("the new package's Kptfile already has a pipeline:\n%s", kf)
	}
	if err := os.WriteFile(kptfile, []byte(strings.TrimRight(string(kf), "\n")+"\n"+pipeline), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(pkg), "deployment.yaml"), []byte(deployment), 0o644); err != nil {
		return err
	}
	s.n.act("alice", "adds %s/deployment.yaml (no namespace) and a pipeline to the Kptfile:", pkg)
	s.n.block("", pipeline)
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "Add the UPF deployment and its pipeline"},
		{"push", "-q", "origin", "HEAD"}} {
		if _, err := s.w.Git(s.ctx, dir, args...); err != nil {
			return err
		}
	}
	pushed, err := s.w.Git(s.ctx, dir, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	s.n.act("alice", "git commit -m 'Add the UPF deployment and its pipeline' && git push  → %s", words.ShortSHA(pushed))
	if err := s.settle(); err != nil {
		return err
	}
	owner, name, _ := strings.Cut(catalog, "/")
	br, _, err := s.alice().Repositories.GetBranch(s.ctx, owner, name, draft, 0)
	if err != nil {
		return err
	}
	head := br.GetCommit().GetSHA()
	if head == pushed {
		return errors.New("porchbot pushed no Render commit on top of alice's")
	}
	c, _, err := s.alice().Git.GetCommit(s.ctx, owner, name, head)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(c.GetMessage(), "Render "+pkg) || len(c.Parents) != 1 || c.Parents[0].GetSHA() != pushed {
		return fmt.Errorf("unexpected head of %s: %s %q", draft, words.ShortSHA(head), firstLine(c.GetMessage()))
	}
	s.n.act("porchbot", "pushed %s %q on top <%s>", words.ShortSHA(head), firstLine(c.GetMessage()), s.url(catalog, "commit", head))
	if t, ok := packages.FindTrailer(c.GetMessage()); ok {
		s.n.more("with the Porch trailer kpt: {package: %s, workspaceName: %s, task: %s}", t.Package, t.WorkspaceName, taskType(t))
	}
	run, err := s.checkRun(catalog, head, core.RenderCheckName, true)
	if err != nil {
		return err
	}
	if run.GetConclusion() != "success" {
		return fmt.Errorf("%s: %s %q", core.RenderCheckName, run.GetConclusion(), run.GetOutput().GetTitle())
	}
	s.n.act("porchbot", "check run %s: %s — %q", run.GetName(), run.GetConclusion(), run.GetOutput().GetTitle())
	s.n.block("", textTable(run.GetOutput().GetText()))
	rendered, err := s.file(catalog, head, pkg+"/deployment.yaml")
	if err != nil {
		return err
	}
	if !strings.Contains(rendered, "namespace: upf") || !strings.Contains(rendered, "app.kubernetes.io/part-of: user-plane") {
		return fmt.Errorf("the rendered deployment lacks the namespace or the label:\n%s", rendered)
	}
	s.n.more("the rendered %s/deployment.yaml now begins:", pkg)
	s.n.block("", firstLines(rendered, 9))
	return nil
}

// 4. /porch propose.
func (s *story) propose() error {
	reply, err := s.command(catalog, s.issue, "alice", "/porch propose "+pkg+"/"+workspace)
	if err != nil {
		return err
	}
	owner, name, _ := strings.Cut(catalog, "/")
	prs, _, err := s.alice().PullRequests.List(s.ctx, owner, name, &github.PullRequestListOptions{State: "open", Head: owner + ":" + draft})
	if err != nil {
		return err
	}
	if len(prs) != 1 {
		return fmt.Errorf("%d open pull requests from %s, want 1 (porchbot said:\n%s)", len(prs), draft, reply)
	}
	s.pr = prs[0]
	s.res.PullRequest = s.pr.GetHTMLURL()
	if !strings.Contains(reply, fmt.Sprintf("#%d", s.pr.GetNumber())) {
		return fmt.Errorf("porchbot's reply does not name #%d:\n%s", s.pr.GetNumber(), reply)
	}
	labels, _, err := s.alice().Issues.ListLabelsByIssue(s.ctx, owner, name, s.pr.GetNumber(), nil)
	if err != nil {
		return err
	}
	var names []string
	for _, l := range labels {
		names = append(names, l.GetName())
	}
	if !contains(names, packages.LabelProposed) {
		return fmt.Errorf("pull request #%d is labelled %v, not %s", s.pr.GetNumber(), names, packages.LabelProposed)
	}
	s.n.act("porchbot", "opened pull request #%d %q <%s>", s.pr.GetNumber(), s.pr.GetTitle(), s.pr.GetHTMLURL())
	s.n.more("%s → %s, labelled %s", s.pr.GetHead().GetRef(), s.pr.GetBase().GetRef(), strings.Join(names, ", "))
	head := s.pr.GetHead().GetSHA()
	if run, err := s.checkRun(catalog, head, core.RenderCheckName, true); err != nil {
		return err
	} else {
		s.n.act("porchbot", "check run %s: %s — %q", run.GetName(), conclusion(run), run.GetOutput().GetTitle())
	}
	run, err := s.checkRun(catalog, head, approval.CheckName, true)
	if err != nil {
		return err
	}
	if run.GetConclusion() == "success" {
		return fmt.Errorf("%s passed before anyone approved: %q", approval.CheckName, run.GetOutput().GetTitle())
	}
	s.n.act("porchbot", "check run %s: %s — %q", run.GetName(), conclusion(run), run.GetOutput().GetTitle())
	return nil
}

// 5. bob's review.
func (s *story) approve() error {
	owner, name, _ := strings.Cut(catalog, "/")
	rev, _, err := s.w.Client("bob").PullRequests.CreateReview(s.ctx, owner, name, s.pr.GetNumber(),
		&github.PullRequestReviewRequest{Event: github.String("APPROVE"), Body: github.String("LGTM: two replicas, namespaced.")})
	if err != nil {
		return fmt.Errorf("bob's review: %w", err)
	}
	s.n.act("bob", "reviews #%d: %s %q", s.pr.GetNumber(), rev.GetState(), rev.GetBody())
	if err := s.settle(); err != nil {
		return err
	}
	run, err := s.checkRun(catalog, s.pr.GetHead().GetSHA(), approval.CheckName, true)
	if err != nil {
		return err
	}
	if run.GetConclusion() != "success" {
		return fmt.Errorf("%s after bob's approval: %s %q\n%s", approval.CheckName, conclusion(run),
			run.GetOutput().GetTitle(), run.GetOutput().GetSummary())
	}
	s.n.act("porchbot", "check run %s: %s — %q", run.GetName(), run.GetConclusion(), run.GetOutput().GetTitle())
	return nil
}

// 6. The merge and the publication.
func (s *story) merge() error {
	owner, name, _ := strings.Cut(catalog, "/")
	res, _, err := s.alice().PullRequests.Merge(s.ctx, owner, name, s.pr.GetNumber(), "", &github.PullRequestOptions{MergeMethod: "merge"})
	if err != nil {
		return fmt.Errorf("merge #%d: %w", s.pr.GetNumber(), err)
	}
	s.mergeSHA = res.GetSHA()
	s.n.act("alice", "merges #%d into main → %s", s.pr.GetNumber(), words.ShortSHA(s.mergeSHA))
	if err := s.settle(); err != nil {
		return err
	}
	ref, _, err := s.alice().Git.GetRef(s.ctx, owner, name, "tags/"+tag)
	if err != nil {
		return fmt.Errorf("no tag %s: %w", tag, err)
	}
	// porchbot's revision: an annotated tag carrying its signed record.
	if ref.GetObject().GetType() != "tag" {
		return fmt.Errorf("tag %s is not porchbot's annotated tag", tag)
	}
	obj, _, err := s.alice().Git.GetTag(s.ctx, owner, name, ref.GetObject().GetSHA())
	if err != nil {
		return fmt.Errorf("tag %s: %w", tag, err)
	}
	if obj.GetObject().GetSHA() != s.mergeSHA {
		return fmt.Errorf("tag %s points at %s, not at the merge %s", tag, words.ShortSHA(obj.GetObject().GetSHA()), words.ShortSHA(s.mergeSHA))
	}
	s.n.act("porchbot", "tagged %s at %s, its record of the approval signed in the tag <%s>", tag, words.ShortSHA(s.mergeSHA), s.url(catalog, "tree", tag))
	rel, _, err := s.alice().Repositories.GetReleaseByTag(s.ctx, owner, name, tag)
	if err != nil {
		return fmt.Errorf("no release for %s: %w", tag, err)
	}
	if !strings.Contains(rel.GetBody(), "bob") {
		return fmt.Errorf("the release notes do not name the approver:\n%s", rel.GetBody())
	}
	s.res.Release = rel.GetHTMLURL()
	s.n.act("porchbot", "released %q <%s>; its notes:", rel.GetName(), rel.GetHTMLURL())
	s.n.block("", textTable(rel.GetBody()))
	if _, _, err := s.alice().Git.GetRef(s.ctx, owner, name, "tags/"+pkg+"/v2"); err == nil {
		return fmt.Errorf("a tag %s/v2 for a single landing", pkg)
	}
	return nil
}

// 7. The downstream clone.
func (s *story) cloneDownstream() error {
	owner, name, _ := strings.Cut(edge, "/")
	issue, _, err := s.alice().Issues.Create(s.ctx, owner, name, &github.IssueRequest{Title: github.String("Deploy the UPF at edge-1")})
	if err != nil {
		return fmt.Errorf("open an issue in %s: %w", edge, err)
	}
	s.n.act("alice", "opens issue #%d %q in %s <%s>", issue.GetNumber(), issue.GetTitle(), edge, issue.GetHTMLURL())
	reply, err := s.command(edge, issue.GetNumber(), "alice", "/porch clone "+catalog+"/"+pkg+"@v1 "+edgePkg)
	if err != nil {
		return err
	}
	br, _, err := s.alice().Repositories.GetBranch(s.ctx, owner, name, edgeDraft, 0)
	if err != nil {
		return fmt.Errorf("no draft branch %s in %s (porchbot said:\n%s): %w", edgeDraft, edge, reply, err)
	}
	s.res.EdgeDraft = s.url(edge, "tree", edgeDraft)
	s.n.act("porchbot", "created branch %s in %s at %s <%s>", edgeDraft, edge, words.ShortSHA(br.GetCommit().GetSHA()), s.res.EdgeDraft)
	kf, err := s.file(edge, br.GetCommit().GetSHA(), edgePkg+"/Kptfile")
	if err != nil {
		return err
	}
	up, lock, err := upstreamOf(kf)
	if err != nil {
		return err
	}
	if !strings.Contains(lock, s.mergeSHA) || !strings.Contains(lock, tag) || !strings.Contains(up, pkg) {
		return fmt.Errorf("the downstream Kptfile does not pin %s at %s:\n%s", tag, words.ShortSHA(s.mergeSHA), kf)
	}
	s.n.more("its %s/Kptfile pins the upstream as kpt pkg get does:", edgePkg)
	s.n.block("", up+lock)
	if run, err := s.checkRun(edge, br.GetCommit().GetSHA(), core.RenderCheckName, false); err != nil {
		return err
	} else if run != nil {
		s.n.act("porchbot", "check run %s: %s — %q", run.GetName(), conclusion(run), run.GetOutput().GetTitle())
	}
	return nil
}

// command comments body on issue number of repo as user, waits for
// porchbot and returns its reply, printed.
func (s *story) command(repo string, number int, user, body string) (string, error) {
	owner, name, _ := strings.Cut(repo, "/")
	c, _, err := s.w.Client(user).Issues.CreateComment(s.ctx, owner, name, number, &github.IssueComment{Body: github.String(body)})
	if err != nil {
		return "", fmt.Errorf("comment %q: %w", body, err)
	}
	s.n.act(user, "comments on #%d: %s", number, body)
	if err := s.settle(); err != nil {
		return "", err
	}
	reacts, _, err := s.w.Client(user).Reactions.ListIssueCommentReactions(s.ctx, owner, name, c.GetID(), nil)
	if err != nil {
		return "", err
	}
	for _, r := range reacts {
		if r.GetUser().GetLogin() == botLogin {
			s.n.act("porchbot", "reacts %s", map[string]string{"eyes": "👀", "+1": "👍", "rocket": "🚀"}[r.GetContent()])
			break
		}
	}
	comments, _, err := s.w.Client(user).Issues.ListComments(s.ctx, owner, name, number, &github.IssueListCommentsOptions{
		ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		return "", err
	}
	var reply *github.IssueComment
	for _, rc := range comments {
		if rc.GetID() > c.GetID() && rc.GetUser().GetLogin() == botLogin {
			reply = rc
			break
		}
	}
	if reply == nil {
		return "", fmt.Errorf("porchbot did not reply to %q", body)
	}
	text := plainText(reply.GetBody())
	s.n.act("porchbot", "replies <%s>:", reply.GetHTMLURL())
	s.n.block("", text)
	if strings.Contains(reply.GetBody(), "❌") || strings.Contains(reply.GetBody(), "🚫") {
		return text, fmt.Errorf("porchbot refused %q", body)
	}
	return text, nil
}

// checkRun is the latest check run called name on ref; with must, its
// absence is an error, otherwise nil.
func (s *story) checkRun(repo, ref, name string, must bool) (*github.CheckRun, error) {
	owner, n, _ := strings.Cut(repo, "/")
	res, _, err := s.alice().Checks.ListCheckRunsForRef(s.ctx, owner, n, ref, &github.ListCheckRunsOptions{CheckName: github.String(name)})
	if err != nil {
		return nil, fmt.Errorf("check runs of %s: %w", words.ShortSHA(ref), err)
	}
	if len(res.CheckRuns) == 0 {
		if must {
			return nil, fmt.Errorf("porchbot reported no %s check run on %s", name, words.ShortSHA(ref))
		}
		return nil, nil
	}
	return res.CheckRuns[0], nil
}

// file reads a file of repo at ref through the contents API.
func (s *story) file(repo, ref, path string) (string, error) {
	owner, n, _ := strings.Cut(repo, "/")
	fc, _, _, err := s.alice().Repositories.GetContents(s.ctx, owner, n, path, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return "", fmt.Errorf("read %s at %s: %w", path, words.ShortSHA(ref), err)
	}
	return fc.GetContent()
}

// tree lists the file names of dir at ref.
func (s *story) tree(repo, ref, dir string) ([]string, error) {
	owner, n, _ := strings.Cut(repo, "/")
	_, entries, _, err := s.alice().Repositories.GetContents(s.ctx, owner, n, dir, &github.RepositoryContentGetOptions{Ref: ref})
	if err != nil {
		return nil, fmt.Errorf("list %s at %s: %w", dir, words.ShortSHA(ref), err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.GetName())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s is empty at %s", dir, words.ShortSHA(ref))
	}
	return out, nil
}

// delivered reports a delivery of event (to repo, if given).
func (s *story) delivered(event, repo string) bool {
	for _, d := range s.w.Forge.Deliveries() {
		if d.Event == event && (repo == "" || d.Repo == repo) && (d.Status == http.StatusAccepted || d.Status == http.StatusOK) {
			return true
		}
	}
	return false
}

// summary is the cost of every step.
func (s *story) summary() {
	s.n.plain("\nAPI calls per step, as the forge counted them")
	s.n.plain("%s", strings.Repeat("─", 46))
	s.n.plain("all: every call the forge answered; users: those that came through the users' door (the demo's")
	s.n.plain("own checks included); porchbot: the rest — equal to porchbot's own count of its calls")
	s.n.plain("(porchbot_github_api_calls_total) unless marked with !. git HTTP requests: info/refs, upload-pack,")
	s.n.plain("receive-pack; porchbot's git: the transport operations of its git cache.\n")
	s.n.plain("%s", strings.TrimRight(StepTable(s.res.Steps), "\n"))
}
