package forge_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// chkSeedCommit commits files on a branch of acme/catalog without webhooks.
func chkSeedCommit(t *testing.T, env *forgetest.Env, branch string, files map[string]string) string {
	t.Helper()
	alice, _ := env.Forge.Account("alice")
	fs := map[string][]byte{}
	for p, c := range files {
		fs[p] = []byte(c)
	}
	sha, err := env.Forge.CommitFiles(env.CatalogRepo, branch, fs, "seed "+branch, alice)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// chkWantStatus asserts an API error with an HTTP status.
func chkWantStatus(t *testing.T, what string, resp *github.Response, err error, status int) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: want %d, got success", what, status)
	}
	if resp == nil || resp.StatusCode != status {
		t.Fatalf("%s: want %d, got %v", what, status, err)
	}
}

func chkAnnotations(n int, level string) []*github.CheckRunAnnotation {
	out := make([]*github.CheckRunAnnotation, n)
	for i := range out {
		out[i] = &github.CheckRunAnnotation{Path: github.String("network/upf/cm.yaml"), StartLine: github.Int(i + 1),
			EndLine: github.Int(i + 1), AnnotationLevel: github.String(level), Message: github.String(fmt.Sprintf("finding %d", i))}
	}
	return out
}

func TestCheckRunPermissionsAndValidation(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	inst := env.Client(env.InstallationToken(t))
	opts := github.CreateCheckRunOptions{Name: "porchbot/render", HeadSHA: sha}

	_, resp, err := env.Client(forgetest.AliceToken).Checks.CreateCheckRun(ctx, "acme", "catalog", opts)
	chkWantStatus(t, "user token", resp, err, http.StatusForbidden)
	if !strings.Contains(err.Error(), "You must authenticate via a GitHub App") {
		t.Errorf("user token: message %v", err)
	}
	_, resp, err = env.Client(forgetest.MalloryToken).Checks.CreateCheckRun(ctx, "acme", "catalog", opts)
	chkWantStatus(t, "no access", resp, err, http.StatusNotFound)

	bad := opts
	bad.HeadSHA = strings.Repeat("ab", 20)
	_, resp, err = inst.Checks.CreateCheckRun(ctx, "acme", "catalog", bad)
	chkWantStatus(t, "unknown sha", resp, err, http.StatusUnprocessableEntity)

	cases := map[string]github.CreateCheckRunOptions{
		"no name":                  {HeadSHA: sha},
		"completed, no conclusion": {Name: "x", HeadSHA: sha, Status: github.String("completed")},
		"bad status":               {Name: "x", HeadSHA: sha, Status: github.String("done")},
		"bad conclusion":           {Name: "x", HeadSHA: sha, Conclusion: github.String("great")},
		"output without summary":   {Name: "x", HeadSHA: sha, Output: &github.CheckRunOutput{Title: github.String("t")}},
		"bad annotation level": {Name: "x", HeadSHA: sha, Output: &github.CheckRunOutput{Title: github.String("t"),
			Summary: github.String("s"), Annotations: chkAnnotations(1, "error")}},
		"51 annotations": {Name: "x", HeadSHA: sha, Output: &github.CheckRunOutput{Title: github.String("t"),
			Summary: github.String("s"), Annotations: chkAnnotations(51, "warning")}},
		"summary too long": {Name: "x", HeadSHA: sha, Output: &github.CheckRunOutput{Title: github.String("t"),
			Summary: github.String(strings.Repeat("s", 65536))}},
	}
	for name, o := range cases {
		_, resp, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", o)
		if err == nil || resp.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("%s: want 422, got %v", name, err)
		}
	}

	run, resp, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", opts)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	_, resp, err = env.Client(forgetest.BobToken).Checks.UpdateCheckRun(ctx, "acme", "catalog", run.GetID(),
		github.UpdateCheckRunOptions{Name: "x", Conclusion: github.String("success")})
	chkWantStatus(t, "user update", resp, err, http.StatusForbidden)
	_, resp, err = inst.Checks.UpdateCheckRun(ctx, "acme", "catalog", 999999, github.UpdateCheckRunOptions{Name: "x"})
	chkWantStatus(t, "unknown run", resp, err, http.StatusNotFound)
	// Readers may read.
	got, _, err := env.Client(forgetest.CarolToken).Checks.GetCheckRun(ctx, "acme", "catalog", run.GetID())
	if err != nil || got.GetName() != "porchbot/render" {
		t.Fatalf("carol reads: %v %v", got, err)
	}
}

func TestCheckRunLifecycle(t *testing.T) {
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"network/upf/cm.yaml": "a: 1\n"})
	inst := env.Client(env.InstallationToken(t))

	run, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{
		Name: "porchbot/render", HeadSHA: sha, Status: github.String("in_progress"), ExternalID: github.String("ext-1"),
		Output: &github.CheckRunOutput{Title: github.String("Rendering"), Summary: github.String("running"),
			Annotations: chkAnnotations(50, "warning")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.GetStatus() != "in_progress" || run.GetConclusion() != "" || run.StartedAt == nil || run.CompletedAt != nil ||
		run.GetOutput().GetAnnotationsCount() != 50 || run.GetDetailsURL() == "" || run.GetCheckSuite().GetID() == 0 ||
		run.GetApp().GetID() != forgetest.AppID || run.GetExternalID() != "ext-1" || run.GetHeadSHA() != sha {
		t.Fatalf("created run: %s", github.Stringify(run))
	}
	run, _, err = inst.Checks.UpdateCheckRun(ctx, "acme", "catalog", run.GetID(), github.UpdateCheckRunOptions{
		Name: "porchbot/render", Conclusion: github.String("failure"),
		Output: &github.CheckRunOutput{Title: github.String("Rendered"), Summary: github.String("1 failure"),
			Text: github.String("details"), Annotations: chkAnnotations(30, "failure")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if run.GetStatus() != "completed" || run.GetConclusion() != "failure" || run.CompletedAt == nil ||
		run.GetOutput().GetAnnotationsCount() != 80 || run.GetOutput().GetTitle() != "Rendered" {
		t.Fatalf("completed run: %s", github.Stringify(run))
	}
	anns, resp, err := inst.Checks.ListCheckRunAnnotations(ctx, "acme", "catalog", run.GetID(), &github.ListOptions{PerPage: 50})
	if err != nil || len(anns) != 50 || resp.NextPage != 2 {
		t.Fatalf("annotations page 1: %d, next %d, %v", len(anns), resp.NextPage, err)
	}
	anns, _, err = inst.Checks.ListCheckRunAnnotations(ctx, "acme", "catalog", run.GetID(), &github.ListOptions{PerPage: 50, Page: 2})
	if err != nil || len(anns) != 30 || anns[29].GetAnnotationLevel() != "failure" {
		t.Fatalf("annotations page 2: %d %v", len(anns), err)
	}

	// A second run of another name, and a re-run of the first name.
	if _, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{
		Name: "porchbot/approval", HeadSHA: sha, Conclusion: github.String("success")}); err != nil {
		t.Fatal(err)
	}
	rerun, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{
		Name: "porchbot/render", HeadSHA: sha, Conclusion: github.String("success")})
	if err != nil {
		t.Fatal(err)
	}
	if rerun.GetCheckSuite().GetID() != run.GetCheckSuite().GetID() {
		t.Fatalf("runs on one commit belong to one suite: %d vs %d", rerun.GetCheckSuite().GetID(), run.GetCheckSuite().GetID())
	}
	for _, ref := range []string{sha, "main", "refs/heads/main", sha[:10]} {
		res, _, err := inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", ref, nil)
		if err != nil || res.GetTotal() != 2 || len(res.CheckRuns) != 2 {
			t.Fatalf("list %s (latest): %v %v", ref, res, err)
		}
		if res.CheckRuns[0].GetID() != rerun.GetID() {
			t.Errorf("list %s: newest first, got %d", ref, res.CheckRuns[0].GetID())
		}
	}
	res, _, err := inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", "main", &github.ListCheckRunsOptions{Filter: github.String("all")})
	if err != nil || res.GetTotal() != 3 {
		t.Fatalf("filter=all: %v %v", res, err)
	}
	res, _, err = inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", "main", &github.ListCheckRunsOptions{
		CheckName: github.String("porchbot/render"), Filter: github.String("all"), ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || res.GetTotal() != 2 || len(res.CheckRuns) != 1 {
		t.Fatalf("check_name, per_page 1: %v %v", res, err)
	}
	res, _, err = inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", "main", &github.ListCheckRunsOptions{Status: github.String("in_progress")})
	if err != nil || res.GetTotal() != 0 {
		t.Fatalf("status filter: %v %v", res, err)
	}
	_, resp, err = inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", "no-such-branch", nil)
	chkWantStatus(t, "unknown ref", resp, err, http.StatusUnprocessableEntity)

	suites, _, err := inst.Checks.ListCheckSuitesForRef(ctx, "acme", "catalog", "main", nil)
	if err != nil || suites.GetTotal() != 1 {
		t.Fatalf("suites: %v %v", suites, err)
	}
	s := suites.CheckSuites[0]
	if s.GetStatus() != "completed" || s.GetConclusion() != "success" || s.GetHeadSHA() != sha ||
		s.GetHeadBranch() != "main" || s.GetApp().GetSlug() != "porchbot" || s.GetRepository().GetFullName() != "acme/catalog" {
		t.Fatalf("suite: %s", github.Stringify(s))
	}
	got, _, err := inst.Checks.GetCheckSuite(ctx, "acme", "catalog", s.GetID())
	if err != nil || got.GetID() != s.GetID() {
		t.Fatalf("get suite: %v", err)
	}
	inSuite, _, err := inst.Checks.ListCheckRunsCheckSuite(ctx, "acme", "catalog", s.GetID(), nil)
	if err != nil || inSuite.GetTotal() != 2 {
		t.Fatalf("runs of suite: %v %v", inSuite, err)
	}

	// Re-runs: by the App over REST, by a user's button, and of the suite.
	if _, err := inst.Checks.ReRequestCheckRun(ctx, "acme", "catalog", run.GetID()); err != nil {
		t.Fatal(err)
	}
	if err := env.Forge.RerequestCheckRun(env.CatalogRepo, run.GetID(), "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Client(forgetest.BobToken).Checks.ReRequestCheckSuite(ctx, "acme", "catalog", s.GetID()); err != nil {
		t.Fatal(err)
	}
	_, err = env.Client(forgetest.CarolToken).Checks.ReRequestCheckRun(ctx, "acme", "catalog", run.GetID())
	var er *github.ErrorResponse
	if !errors.As(err, &er) || er.Response.StatusCode != http.StatusForbidden {
		t.Fatalf("carol (read) re-runs: %v", err)
	}
	env.WaitDeliveries(t)
	// A re-run sends the suite back to queued, conclusion cleared.
	if got, _, err := inst.Checks.GetCheckSuite(ctx, "acme", "catalog", s.GetID()); err != nil ||
		got.GetStatus() != "queued" || got.Conclusion != nil {
		t.Fatalf("suite after re-run: %v %v", got, err)
	}

	count := func(event, action string) int { return len(hooks.of(event, action)) }
	for _, c := range []struct {
		event, action string
		n             int
	}{
		{"check_run", "created", 3}, {"check_run", "completed", 3}, {"check_run", "rerequested", 2},
		{"check_suite", "completed", 1}, {"check_suite", "rerequested", 1}, {"check_suite", "requested", 0},
	} {
		if got := count(c.event, c.action); got != c.n {
			t.Errorf("%s %s deliveries: %d, want %d", c.event, c.action, got, c.n)
		}
	}
	// The suite completed once (when render failed); later runs changed its
	// conclusion without completing it again.
	for _, d := range hooks.of("check_run", "rerequested") {
		ev, err := github.ParseWebHook(d.event, d.body)
		if err != nil {
			t.Fatal(err)
		}
		cr := ev.(*github.CheckRunEvent)
		if cr.GetCheckRun().GetID() != run.GetID() || cr.GetInstallation().GetID() != env.Installation.ID {
			t.Errorf("rerequested: %s", github.Stringify(cr))
		}
	}
	senders := []string{}
	for _, d := range hooks.of("check_run", "rerequested") {
		ev, _ := github.ParseWebHook(d.event, d.body)
		senders = append(senders, ev.(*github.CheckRunEvent).GetSender().GetLogin())
	}
	if strings.Join(senders, ",") != "porchbot[bot],bob" {
		t.Errorf("rerequested senders: %v", senders)
	}
	created := hooks.of("check_run", "created")[0]
	ev, _ := github.ParseWebHook(created.event, created.body)
	if cr := ev.(*github.CheckRunEvent); cr.GetSender().GetLogin() != "porchbot[bot]" || cr.GetOrg().GetLogin() != "acme" ||
		cr.GetRepo().GetFullName() != "acme/catalog" || cr.GetCheckRun().GetCheckSuite().GetApp().GetID() != forgetest.AppID {
		t.Errorf("created payload: %s", github.Stringify(cr))
	}
	for _, c := range []fidelityCase{{"check_run", "created"}, {"check_run", "completed"}, {"check_run", "rerequested"}} {
		for _, d := range hooks.of(c.event, c.action) {
			miss, err := fidCompare(t, d, fidExamplesFor(t, c.event, c.action))
			if err != nil {
				t.Fatal(err)
			}
			// Without a pull request on the commit, pull_requests is empty.
			var rest []string
			for _, m := range miss {
				if !strings.Contains(m, "PullRequests") {
					rest = append(rest, m)
				}
			}
			if len(rest) > 0 {
				t.Errorf("%s %s lacks:\n  %s", c.event, c.action, strings.Join(rest, "\n  "))
			}
			break
		}
	}
}

func TestCheckRunsOnTagAndSlashedBranch(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	chkSeedCommit(t, env, "main", map[string]string{"a": "1\n"})
	sha := chkSeedCommit(t, env, "drafts/network/upf/w1", map[string]string{"a": "2\n"})
	inst := env.Client(env.InstallationToken(t))
	if _, _, err := inst.Checks.CreateCheckRun(ctx, "acme", "catalog", github.CreateCheckRunOptions{Name: "r", HeadSHA: sha}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := env.Client(forgetest.AliceToken).Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/upf/v1"), TargetCommitish: github.String(sha)}); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"drafts/network/upf/w1", "network/upf/v1", "refs/tags/network/upf/v1"} {
		res, _, err := inst.Checks.ListCheckRunsForRef(ctx, "acme", "catalog", ref, nil)
		if err != nil || res.GetTotal() != 1 {
			t.Errorf("runs for %s: %v %v", ref, res, err)
		}
	}
	runs, err := env.Forge.CheckRunsFor(env.CatalogRepo, "network/upf/v1")
	if err != nil || len(runs) != 1 || runs[0].Name != "r" {
		t.Fatalf("CheckRunsFor: %v %v", runs, err)
	}
	suites, _, err := inst.Checks.ListCheckSuitesForRef(ctx, "acme", "catalog", "drafts/network/upf/w1", nil)
	if err != nil || suites.GetTotal() != 1 || suites.CheckSuites[0].GetHeadBranch() != "drafts/network/upf/w1" {
		t.Fatalf("suite head branch: %v %v", suites, err)
	}
}
