package forge_test

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestDeployments: GitHub's deployments through go-github: who may create
// and read them, GitHub's defaults and refusals, the filters and order of
// the list, and the deployment webhook.
func TestDeployments(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	sha := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	bob := env.Client(forgetest.BobToken)
	inst := env.Client(env.InstallationToken(t))
	app := newPullsHooks(t, env)
	req := func(env string) *github.DeploymentRequest {
		return &github.DeploymentRequest{Ref: github.String("main"), Environment: github.String(env), RequiredContexts: &[]string{}}
	}

	_, resp, err := env.Client(forgetest.CarolToken).Repositories.CreateDeployment(ctx, "acme", "catalog", req("edge"))
	chkWantStatus(t, "read-only user", resp, err, http.StatusForbidden)
	_, resp, err = env.Client(forgetest.MalloryToken).Repositories.ListDeployments(ctx, "acme", "catalog", nil)
	chkWantStatus(t, "no access", resp, err, http.StatusNotFound)
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{})
	chkWantStatus(t, "no ref", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String("nowhere")})
	chkWantStatus(t, "unknown ref", resp, err, http.StatusUnprocessableEntity)
	big := req("edge")
	big.Payload = map[string]string{"blob": strings.Repeat("x", 70<<10)}
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", big)
	chkWantStatus(t, "payload too large", resp, err, http.StatusUnprocessableEntity)
	number := req("edge")
	number.Payload = 42
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", number)
	chkWantStatus(t, "payload neither object nor string", resp, err, http.StatusUnprocessableEntity)

	// required_contexts: omitted, every context of the commit must pass;
	// named, those; [] none.
	if _, _, err := bob.Repositories.CreateStatus(ctx, "acme", "catalog", sha, &github.RepoStatus{State: github.String("failure"), Context: github.String("ci/lint")}); err != nil {
		t.Fatal(err)
	}
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String("main")})
	chkWantStatus(t, "a failing context", resp, err, http.StatusConflict)
	if !strings.Contains(err.Error(), "Commit status checks failed for main") {
		t.Errorf("409: %v", err)
	}
	_, resp, err = bob.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String("main"), RequiredContexts: &[]string{"ci/test"}})
	chkWantStatus(t, "a required context never reported", resp, err, http.StatusConflict)

	edge := req("edge")
	edge.Payload, edge.Description = `{"site": "edge-1"}`, github.String("Deploy network/upf")
	d1, resp, err := bob.Repositories.CreateDeployment(ctx, "acme", "catalog", edge)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %v", err)
	}
	if d1.GetSHA() != sha || d1.GetRef() != "main" || d1.GetTask() != "deploy" || d1.GetEnvironment() != "edge" ||
		d1.GetCreator().GetLogin() != "bob" || d1.GetDescription() != "Deploy network/upf" || string(d1.Payload) != `{"site":"edge-1"}` ||
		!strings.HasSuffix(d1.GetStatusesURL(), "/deployments/"+itoa(d1.GetID())+"/statuses") {
		t.Fatalf("created %s (payload %s)", github.Stringify(d1), d1.Payload)
	}
	d2, _, err := inst.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String(sha), RequiredContexts: &[]string{},
		Task: github.String("deploy:migrations")})
	if err != nil {
		t.Fatal(err)
	}
	if d2.GetEnvironment() != "production" || string(d2.Payload) != "{}" || d2.GetCreator().GetLogin() != "porchbot[bot]" {
		t.Fatalf("defaults: %s (payload %s)", github.Stringify(d2), d2.Payload)
	}
	raw := getJSON(t, bob, "repos/acme/catalog/deployments/"+itoa(d2.GetID()))
	if raw["production_environment"] != true || raw["transient_environment"] != false || raw["original_environment"] != "production" ||
		raw["description"] != nil || raw["performed_via_github_app"] == nil {
		t.Errorf("GitHub's members of a deployment by the App: %v", raw)
	}

	// The list: newest first, filtered, paginated.
	all, _, err := bob.Repositories.ListDeployments(ctx, "acme", "catalog", nil)
	if err != nil || len(all) != 2 || all[0].GetID() != d2.GetID() {
		t.Fatalf("list: %v %v", all, err)
	}
	for _, c := range []struct {
		opts *github.DeploymentsListOptions
		want int64
	}{
		{&github.DeploymentsListOptions{Environment: "edge"}, d1.GetID()},
		{&github.DeploymentsListOptions{Task: "deploy:migrations"}, d2.GetID()},
		{&github.DeploymentsListOptions{Ref: "main", SHA: sha}, d1.GetID()},
	} {
		got, _, err := bob.Repositories.ListDeployments(ctx, "acme", "catalog", c.opts)
		if err != nil || len(got) != 1 || got[0].GetID() != c.want {
			t.Errorf("list %+v: %v %v", c.opts, got, err)
		}
	}
	page, resp, err := bob.Repositories.ListDeployments(ctx, "acme", "catalog", &github.DeploymentsListOptions{ListOptions: github.ListOptions{PerPage: 1}})
	if err != nil || len(page) != 1 || resp.NextPage != 2 {
		t.Fatalf("page 1: %v next %d %v", page, resp.NextPage, err)
	}
	got, _, err := env.Client(forgetest.CarolToken).Repositories.GetDeployment(ctx, "acme", "catalog", d1.GetID())
	if err != nil || got.GetEnvironment() != "edge" {
		t.Fatalf("get as a reader: %v %v", got, err)
	}
	_, resp, err = bob.Repositories.GetDeployment(ctx, "acme", "catalog", 999999)
	chkWantStatus(t, "unknown deployment", resp, err, http.StatusNotFound)

	env.WaitDeliveries(t)
	hooks := app.of("deployment", "created")
	if len(hooks) != 2 {
		t.Fatalf("%d deployment webhooks, want 2", len(hooks))
	}
	ev, err := github.ParseWebHook("deployment", hooks[0].Body)
	if err != nil {
		t.Fatal(err)
	}
	if de := ev.(*github.DeploymentEvent); de.GetDeployment().GetID() != d1.GetID() || de.GetDeployment().GetSHA() != sha ||
		de.GetSender().GetLogin() != "bob" || de.GetInstallation().GetID() != env.Installation.ID || de.GetRepo().GetFullName() != "acme/catalog" {
		t.Errorf("deployment webhook: %s", github.Stringify(de))
	}
}

// TestDeploymentAutoMerge: a branch behind the default branch gets it
// merged in (202, no deployment) unless auto_merge is false; a conflict is
// 409.
func TestDeploymentAutoMerge(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	base := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	alice := env.Client(forgetest.AliceToken)
	for _, b := range []string{"topic", "clash"} {
		if _, _, err := alice.Git.CreateRef(ctx, "acme", "catalog", &github.Reference{Ref: github.String("refs/heads/" + b), Object: &github.GitObject{SHA: github.String(base)}}); err != nil {
			t.Fatal(err)
		}
	}
	chkSeedCommit(t, env, "clash", map[string]string{"README.md": "clash\n"})
	main := chkSeedCommit(t, env, "main", map[string]string{"README.md": "hello\n"})
	deploy := func(ref string, autoMerge *bool) (*github.Deployment, *github.Response, error) {
		return alice.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String(ref),
			AutoMerge: autoMerge, RequiredContexts: &[]string{}})
	}

	d, _, err := deploy("topic", github.Bool(false))
	if err != nil || d.GetSHA() != base {
		t.Fatalf("auto_merge false deploys the branch as it is: %v %v", d, err)
	}
	_, resp, err := deploy("topic", nil)
	var accepted *github.AcceptedError
	if !errors.As(err, &accepted) || resp.StatusCode != http.StatusAccepted || !strings.Contains(string(accepted.Raw), "Auto-merged main into topic on deployment.") {
		t.Fatalf("behind main: %v (%s)", err, accepted.Raw)
	}
	merged, _, err := alice.Repositories.GetCommit(ctx, "acme", "catalog", "topic", nil)
	if err != nil || len(merged.Parents) != 2 || merged.Parents[0].GetSHA() != base || merged.Parents[1].GetSHA() != main {
		t.Fatalf("topic after the auto-merge: %v %v", merged, err)
	}
	if d, _, err := deploy("topic", nil); err != nil || d.GetSHA() != merged.GetSHA() {
		t.Fatalf("topic up to date: %v %v", d, err)
	}
	_, resp, err = deploy("clash", nil)
	chkWantStatus(t, "a conflict", resp, err, http.StatusConflict)
	if !strings.Contains(err.Error(), "Conflict merging main into clash.") {
		t.Errorf("409: %v", err)
	}
}

// TestDeploymentStatuses: statuses as go-github posts and reads them,
// their webhooks, the environment a status moves its deployment to, and
// auto_inactive.
func TestDeploymentStatuses(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	chkSeedCommit(t, env, "main", map[string]string{"README.md": "hi\n"})
	bob := env.Client(forgetest.BobToken)
	inst := env.Client(env.InstallationToken(t))
	app := newPullsHooks(t, env)
	deploy := func(env string, production bool) int64 {
		t.Helper()
		d, _, err := bob.Repositories.CreateDeployment(ctx, "acme", "catalog", &github.DeploymentRequest{Ref: github.String("main"),
			Environment: github.String(env), ProductionEnvironment: github.Bool(production), RequiredContexts: &[]string{}})
		if err != nil {
			t.Fatal(err)
		}
		return d.GetID()
	}
	report := func(c *github.Client, id int64, st *github.DeploymentStatusRequest) *github.DeploymentStatus {
		t.Helper()
		s, _, err := c.Repositories.CreateDeploymentStatus(ctx, "acme", "catalog", id, st)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	latest := func(id int64) string {
		t.Helper()
		ss, _, err := bob.Repositories.ListDeploymentStatuses(ctx, "acme", "catalog", id, nil)
		if err != nil || len(ss) == 0 {
			t.Fatalf("statuses of %d: %v %v", id, ss, err)
		}
		return ss[0].GetState()
	}

	old, prod, d := deploy("edge", false), deploy("edge", true), deploy("edge", false)
	_, resp, err := bob.Repositories.CreateDeploymentStatus(ctx, "acme", "catalog", d, &github.DeploymentStatusRequest{State: github.String("done")})
	chkWantStatus(t, "bad state", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = bob.Repositories.CreateDeploymentStatus(ctx, "acme", "catalog", d, &github.DeploymentStatusRequest{State: github.String("success"),
		Description: github.String(strings.Repeat("d", 141))})
	chkWantStatus(t, "description too long", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = env.Client(forgetest.CarolToken).Repositories.CreateDeploymentStatus(ctx, "acme", "catalog", d, &github.DeploymentStatusRequest{State: github.String("success")})
	chkWantStatus(t, "read-only user", resp, err, http.StatusForbidden)
	_, resp, err = bob.Repositories.CreateDeploymentStatus(ctx, "acme", "catalog", 999999, &github.DeploymentStatusRequest{State: github.String("success")})
	chkWantStatus(t, "unknown deployment", resp, err, http.StatusNotFound)

	// (The production deployment's success comes first: a success makes
	// the deployments before its own inactive.)
	report(bob, prod, &github.DeploymentStatusRequest{State: github.String("success")})
	report(bob, old, &github.DeploymentStatusRequest{State: github.String("success")})
	running := report(inst, d, &github.DeploymentStatusRequest{State: github.String("in_progress"), LogURL: github.String("https://flux.example/edge-1")})
	if running.GetTargetURL() != "https://flux.example/edge-1" || running.GetEnvironment() != "edge" || running.GetCreator().GetLogin() != "porchbot[bot]" {
		t.Fatalf("in progress: %s", github.Stringify(running))
	}
	if latest(old) != "success" {
		t.Fatal("an in_progress status made an earlier deployment inactive")
	}
	done := report(bob, d, &github.DeploymentStatusRequest{State: github.String("success"), Description: github.String("Applied"),
		EnvironmentURL: github.String("https://edge-1.example")})
	if done.GetEnvironment() != "edge" || done.GetDescription() != "Applied" || done.GetEnvironmentURL() != "https://edge-1.example" ||
		!strings.HasSuffix(done.GetDeploymentURL(), "/deployments/"+itoa(d)) {
		t.Fatalf("success: %s", github.Stringify(done))
	}
	// auto_inactive: the earlier edge deployment is inactive, the
	// production one is not.
	if got := latest(old); got != "inactive" {
		t.Errorf("the earlier deployment of edge is %s, want inactive", got)
	}
	if got := latest(prod); got != "success" {
		t.Errorf("the production deployment is %s, want success (never made inactive)", got)
	}

	// The list is newest first; one status reads alone.
	ss, _, err := bob.Repositories.ListDeploymentStatuses(ctx, "acme", "catalog", d, nil)
	if err != nil || len(ss) != 2 || ss[0].GetID() != done.GetID() || ss[1].GetID() != running.GetID() {
		t.Fatalf("statuses: %v %v", ss, err)
	}
	one, _, err := env.Client(forgetest.CarolToken).Repositories.GetDeploymentStatus(ctx, "acme", "catalog", d, running.GetID())
	if err != nil || one.GetState() != "in_progress" {
		t.Fatalf("get: %v %v", one, err)
	}
	_, resp, err = bob.Repositories.GetDeploymentStatus(ctx, "acme", "catalog", old, running.GetID())
	chkWantStatus(t, "a status of another deployment", resp, err, http.StatusNotFound)

	// A status naming another environment moves the deployment there;
	// auto_inactive false leaves the earlier ones be.
	moved := deploy("edge", false)
	s := report(bob, moved, &github.DeploymentStatusRequest{State: github.String("success"), Environment: github.String("edge-2"), AutoInactive: github.Bool(false)})
	dep, _, err := bob.Repositories.GetDeployment(ctx, "acme", "catalog", moved)
	if err != nil || s.GetEnvironment() != "edge-2" || dep.GetEnvironment() != "edge-2" {
		t.Fatalf("environment moved: status %s, deployment %v %v", s.GetEnvironment(), dep.GetEnvironment(), err)
	}
	if raw := getJSON(t, bob, "repos/acme/catalog/deployments/"+itoa(moved)); raw["original_environment"] != "edge" {
		t.Errorf("original_environment %v, want edge", raw["original_environment"])
	}
	if got := latest(d); got != "success" {
		t.Errorf("auto_inactive false made the edge deployment %s", got)
	}

	// Every status was a deployment_status webhook, the inactive one
	// included, shaped as go-github reads it.
	env.WaitDeliveries(t)
	hooks := app.of("deployment_status", "created")
	if len(hooks) != 6 {
		t.Fatalf("%d deployment_status webhooks, want 6", len(hooks))
	}
	var states []string
	for _, h := range hooks {
		ev, err := github.ParseWebHook("deployment_status", h.Body)
		if err != nil {
			t.Fatal(err)
		}
		e := ev.(*github.DeploymentStatusEvent)
		states = append(states, e.GetDeploymentStatus().GetState())
		if e.GetDeployment().GetSHA() == "" || e.GetRepo().GetFullName() != "acme/catalog" || e.GetInstallation().GetID() != env.Installation.ID {
			t.Errorf("deployment_status webhook: %s", github.Stringify(e))
		}
		if e.GetDeploymentStatus().GetID() == done.GetID() && (e.GetDeployment().GetID() != d || e.GetDeploymentStatus().GetEnvironment() != "edge" || e.GetSender().GetLogin() != "bob") {
			t.Errorf("the success's webhook: %s", github.Stringify(e))
		}
	}
	if got := strings.Join(states, ","); got != "success,success,in_progress,success,inactive,success" {
		t.Errorf("deployment_status webhooks in order: %s", got)
	}
}

// getJSON reads a REST answer as a JSON object, for the members go-github
// does not model.
func getJSON(t *testing.T, c *github.Client, path string) map[string]any {
	t.Helper()
	req, err := c.NewRequest(http.MethodGet, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if _, err := c.Do(context.Background(), req, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
