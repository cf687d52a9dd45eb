package forge_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v4"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// driveEveryRoute calls every route the forge serves, in the order of a
// lifecycle round (proposal, review, render, merge, release), and makes
// the forge send every webhook kind it sends. Each call states the status
// it expects: the answers are the forge's successes, not its errors.
func driveEveryRoute(t *testing.T, env *forgetest.Env, d *schemaDriver, hookURL string) {
	const (
		ok, created, noContent, notFound = http.StatusOK, http.StatusCreated, http.StatusNoContent, http.StatusNotFound
		R                                = "/repos/acme/catalog"
	)
	alice, bob := forgetest.AliceToken, forgetest.BobToken
	inst := env.InstallationToken(t)
	key, err := jwt.ParseRSAPrivateKeyFromPEM(env.PrivateKeyPEM)
	if err != nil {
		t.Fatal(err)
	}
	app := appJWT(t, key, strconv.FormatInt(forgetest.AppID, 10), 10*time.Minute)
	f := env.Forge
	aliceAcct, _ := f.Account("alice")
	if _, err := f.CommitFiles(env.CatalogRepo, "main", map[string][]byte{
		"README.md":                []byte("# catalog\n"),
		"network/upf/Kptfile":      []byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: upf\n"),
		"network/upf/README.md":    []byte("# upf\n"),
		"network/upf/cm.yaml":      []byte("a: 1\n"),
		"network/upf/scratch.yaml": []byte("b: 1\n"),
	}, "Add the catalog", aliceAcct); err != nil {
		t.Fatal(err)
	}
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	esc := url.PathEscape

	// The App and its installation.
	d.do(app, "GET", "/app", nil, ok)
	d.do(app, "GET", "/app/installations", nil, ok)
	instID := strconv.FormatInt(env.Installation.ID, 10)
	d.do(app, "GET", "/app/installations/"+instID, nil, ok)
	d.do(app, "POST", "/app/installations/"+instID+"/access_tokens", nil, created)
	d.do(app, "GET", R+"/installation", nil, ok)
	d.do(inst, "GET", "/installation/repositories", nil, ok)
	for _, action := range []string{"created", "suspend", "unsuspend", "new_permissions_accepted", "deleted"} {
		if err := f.EmitInstallation(action, "acme", "alice"); err != nil {
			t.Fatal(err)
		}
	}

	// People and repositories.
	d.do(alice, "GET", "/user", nil, ok)
	d.do(alice, "GET", "/users/bob", nil, ok)
	d.do(alice, "GET", "/users/alice/repos", nil, ok)
	d.do(alice, "GET", "/orgs/acme", nil, ok)
	d.do(alice, "GET", "/orgs/acme/members", nil, ok)
	d.do(alice, "GET", "/orgs/acme/members/bob", nil, noContent)
	d.do(alice, "GET", "/orgs/acme/memberships/bob", nil, ok)
	d.do(alice, "GET", "/orgs/acme/teams", nil, ok)
	d.do(forgetest.CarolToken, "POST", R+"/forks", nil, http.StatusAccepted)
	d.do(forgetest.CarolToken, "GET", "/repos/carol/catalog", nil, ok)
	d.do(alice, "GET", "/orgs/acme/teams/platform", nil, ok)
	d.do(alice, "GET", "/orgs/acme/teams/platform/members", nil, ok)
	d.do(alice, "GET", "/orgs/acme/teams/platform/memberships/alice", nil, ok)
	d.do(alice, "POST", "/orgs/acme/repos", map[string]any{"name": "blueprints"}, created)
	d.do(alice, "GET", "/orgs/acme/repos", nil, ok)
	d.do(alice, "POST", "/user/repos", map[string]any{"name": "scratch"}, created)
	d.do(alice, "GET", "/user/repos", nil, ok)
	d.do(alice, "GET", "/rate_limit", nil, ok)

	// What a user-to-server token (the App's OAuth web flow) sees of the
	// App's installations.
	env.Forge.SetAppCallbackURLs(oauthCallback)
	oauthGrant, _ := oauthCode(t, env, "alice", alice, "drive")
	_, clientSecret := f.AppOAuthClient()
	userToken, _ := oauthExchange(t, env, oauthGrant, clientSecret)["access_token"].(string)
	d.do(userToken, "GET", "/user/installations", nil, ok)
	d.do(userToken, "GET", "/user/installations/"+instID+"/repositories", nil, ok)
	d.do(alice, "GET", R, nil, ok)
	d.do(alice, "GET", R+"/collaborators", nil, ok)
	d.do(alice, "GET", R+"/collaborators/bob", nil, noContent)
	d.do(alice, "GET", R+"/collaborators/bob/permission", nil, ok)
	if err := f.EmitInstallationRepositories("added", "acme", []string{"acme/blueprints"}, nil, "alice"); err != nil {
		t.Fatal(err)
	}
	if err := f.EmitInstallationRepositories("removed", "acme", nil, []string{"acme/blueprints"}, "alice"); err != nil {
		t.Fatal(err)
	}

	// A repository hook to the same receiver (its ping is a delivery).
	hook := d.do(alice, "POST", R+"/hooks", map[string]any{"name": "web", "events": []string{"*"},
		"config": map[string]any{"url": hookURL, "content_type": "json", "secret": string(env.WebhookSecret)}}, created)
	hookID := field(hook, "id")
	d.do(alice, "GET", R+"/hooks", nil, ok)
	d.do(alice, "GET", R+"/hooks/"+hookID, nil, ok)
	d.do(alice, "PATCH", R+"/hooks/"+hookID, map[string]any{"active": true}, ok)
	d.do(alice, "GET", R+"/hooks/"+hookID+"/config", nil, ok)
	d.do(alice, "PATCH", R+"/hooks/"+hookID+"/config", map[string]any{"content_type": "json"}, ok)
	d.do(alice, "POST", R+"/hooks/"+hookID+"/pings", nil, noContent)

	// Contents.
	d.do(alice, "GET", R+"/contents", nil, ok)
	scratch := d.do(alice, "GET", R+"/contents/network/upf/scratch.yaml", nil, ok)
	d.do(alice, "GET", R+"/readme", nil, ok)
	d.do(alice, "GET", R+"/readme/network/upf", nil, ok)
	d.do(alice, "PUT", R+"/topics", map[string]any{"names": []string{"catalog"}}, ok)
	d.do(alice, "GET", R+"/topics", nil, ok)
	d.do(alice, "PUT", R+"/contents/network/upf/notes.md", map[string]any{"message": "Add notes", "content": b64("notes\n")}, created)
	d.do(alice, "DELETE", R+"/contents/network/upf/scratch.yaml", map[string]any{"message": "Drop scratch",
		"sha": field(scratch, "sha")}, ok)

	// A draft made with the git data API.
	main := field(d.do(alice, "GET", R+"/git/ref/heads/main", nil, ok), "object.sha")
	blob := field(d.do(alice, "POST", R+"/git/blobs", map[string]any{"content": "a: 2\n", "encoding": "utf-8"}, created), "sha")
	d.do(alice, "GET", R+"/git/blobs/"+blob, nil, ok)
	baseTree := field(d.do(alice, "GET", R+"/git/commits/"+main, nil, ok), "tree.sha")
	tree := field(d.do(alice, "POST", R+"/git/trees", map[string]any{"base_tree": baseTree,
		"tree": []any{map[string]any{"path": "network/upf/cm.yaml", "mode": "100644", "type": "blob", "sha": blob}}}, created), "sha")
	d.do(alice, "GET", R+"/git/trees/"+tree, nil, ok)
	head := field(d.do(alice, "POST", R+"/git/commits", map[string]any{"message": "Edit upf", "tree": tree,
		"parents": []string{main}}, created), "sha")
	const draft = "drafts/network/upf/w1"
	d.do(alice, "POST", R+"/git/refs", map[string]any{"ref": "refs/heads/" + draft, "sha": head}, created)
	d.do(alice, "GET", R+"/git/refs", nil, ok)
	d.do(alice, "GET", R+"/git/refs/heads/"+draft, nil, ok)
	d.do(alice, "GET", R+"/git/matching-refs/heads/drafts", nil, ok)
	d.do(alice, "PATCH", R+"/git/refs/heads/"+draft, map[string]any{"sha": head}, ok)
	d.do(alice, "POST", R+"/git/refs", map[string]any{"ref": "refs/heads/tmp", "sha": main}, created)
	d.do(alice, "DELETE", R+"/git/refs/heads/tmp", nil, noContent)
	tag := field(d.do(alice, "POST", R+"/git/tags", map[string]any{"tag": "network/upf/v0", "message": "v0",
		"object": main, "type": "commit"}, created), "sha")
	d.do(alice, "GET", R+"/git/tags/"+tag, nil, ok)
	d.do(alice, "GET", R+"/branches", nil, ok)
	d.do(alice, "GET", R+"/branches/"+draft, nil, ok)
	protection := R + "/branches/" + draft + "/protection"
	d.do(alice, "GET", protection, nil, notFound)
	d.do(alice, "PUT", protection, map[string]any{
		"required_status_checks": map[string]any{"strict": false, "checks": []any{
			map[string]any{"context": "porchbot/approval", "app_id": forgetest.AppID}, map[string]any{"context": "ci"}}},
		"enforce_admins": true, "required_pull_request_reviews": nil, "restrictions": nil}, ok)
	d.do(alice, "GET", protection, nil, ok)
	d.do(alice, "PATCH", protection+"/required_status_checks", map[string]any{"checks": []any{
		map[string]any{"context": "porchbot/approval", "app_id": forgetest.AppID},
		map[string]any{"context": "porchbot/render", "app_id": forgetest.AppID}}}, ok)
	d.do(alice, "GET", R+"/branches/"+draft, nil, ok)
	d.do(alice, "GET", R+"/branches", nil, ok)
	d.do(alice, "DELETE", protection, nil, noContent)
	d.do(alice, "GET", R+"/commits", nil, ok)
	d.do(alice, "GET", R+"/commits/"+head, nil, ok)
	d.do(alice, "GET", R+"/compare/main..."+esc(draft), nil, ok)

	// Labels.
	d.do(alice, "POST", R+"/labels", map[string]any{"name": "porch/proposed", "color": "0e8a16"}, created)
	d.do(alice, "POST", R+"/labels", map[string]any{"name": "kind-network", "color": "ededed"}, created)
	d.do(alice, "GET", R+"/labels", nil, ok)
	d.do(alice, "GET", R+"/labels/kind-network", nil, ok)
	d.do(alice, "PATCH", R+"/labels/kind-network", map[string]any{"color": "ffffff"}, ok)

	// The proposal.
	pr := d.do(alice, "POST", R+"/pulls", map[string]any{"title": "network/upf: w1", "head": draft, "base": "main",
		"body": "Proposes network/upf"}, created)
	n := field(pr, "number")
	P, I := R+"/pulls/"+n, R+"/issues/"+n
	d.do(alice, "GET", R+"/pulls", nil, ok)
	d.do(alice, "GET", P, nil, ok)
	d.do(alice, "PATCH", P, map[string]any{"body": "Proposes network/upf (w1)"}, ok)
	d.do(alice, "GET", P+"/files", nil, ok)
	d.do(alice, "GET", P+"/commits", nil, ok)
	d.do(alice, "GET", P+"/merge", nil, notFound)
	d.do(alice, "GET", R+"/commits/"+head+"/pulls", nil, ok)
	d.do(alice, "POST", I+"/labels", map[string]any{"labels": []string{"porch/proposed"}}, ok)
	d.do(alice, "PUT", I+"/labels", map[string]any{"labels": []string{"porch/proposed", "kind-network"}}, ok)
	d.do(alice, "GET", I+"/labels", nil, ok)
	d.do(alice, "DELETE", I+"/labels/kind-network", nil, ok)
	d.do(alice, "DELETE", I+"/labels", nil, noContent)
	d.do(alice, "POST", I+"/labels", map[string]any{"labels": []string{"porch/proposed"}}, ok)
	d.do(alice, "PATCH", I, map[string]any{"assignees": []string{"alice"}}, ok)
	d.do(alice, "PATCH", I, map[string]any{"assignees": []string{}}, ok)
	d.do(alice, "PATCH", I, map[string]any{"assignees": []string{"alice"}}, ok)
	d.do(alice, "GET", I, nil, ok)
	d.do(alice, "POST", P+"/requested_reviewers", map[string]any{"reviewers": []string{"bob"}}, created)
	d.do(alice, "DELETE", P+"/requested_reviewers", map[string]any{"reviewers": []string{"bob"}}, ok)
	d.do(alice, "GET", P+"/requested_reviewers", nil, ok)
	d.do(alice, "POST", P+"/requested_reviewers", map[string]any{"reviewers": []string{"bob"}}, created)
	d.do(alice, "GET", P+"/requested_reviewers", nil, ok)
	// A push to the proposal (synchronize).
	next := field(d.do(alice, "POST", R+"/git/commits", map[string]any{"message": "Edit upf again", "tree": tree,
		"parents": []string{head}}, created), "sha")
	d.do(alice, "PATCH", R+"/git/refs/heads/"+draft, map[string]any{"sha": next}, ok)
	head = next
	d.do(alice, "PUT", I+"/lock", nil, noContent)
	d.do(alice, "DELETE", I+"/lock", nil, noContent)

	// Conversation.
	c := field(d.do(alice, "POST", I+"/comments", map[string]any{"body": "/porch approve"}, created), "id")
	gone := field(d.do(alice, "POST", I+"/comments", map[string]any{"body": "typo"}, created), "id")
	// The App comments too: its user is porchbot[bot], whose login must
	// be escaped in its URLs.
	d.do(inst, "POST", I+"/comments", map[string]any{"body": "Rendered: 1 function passed"}, created)
	d.do(alice, "GET", I+"/comments", nil, ok)
	d.do(alice, "GET", R+"/issues/comments", nil, ok)
	d.do(alice, "GET", R+"/issues/comments/"+c, nil, ok)
	d.do(alice, "PATCH", R+"/issues/comments/"+gone, map[string]any{"body": "typo fixed"}, ok)
	d.do(alice, "DELETE", R+"/issues/comments/"+gone, nil, noContent)
	rc := field(d.do(bob, "POST", R+"/issues/comments/"+c+"/reactions", map[string]any{"content": "+1"}, created), "id")
	d.do(bob, "GET", R+"/issues/comments/"+c+"/reactions", nil, ok)
	d.do(bob, "DELETE", R+"/issues/comments/"+c+"/reactions/"+rc, nil, noContent)
	ri := field(d.do(bob, "POST", I+"/reactions", map[string]any{"content": "rocket"}, created), "id")
	d.do(bob, "GET", I+"/reactions", nil, ok)
	d.do(bob, "DELETE", I+"/reactions/"+ri, nil, noContent)
	is := R + "/issues/" + field(d.do(alice, "POST", R+"/issues", map[string]any{"title": "Render fails on upf", "body": "see the check run"}, created), "number")
	d.do(alice, "PATCH", is, map[string]any{"body": "- [x] see the check run"}, ok)
	d.do(alice, "PATCH", is, map[string]any{"state": "closed"}, ok)
	d.do(alice, "GET", is, nil, ok)
	d.do(alice, "PATCH", is, map[string]any{"state": "open"}, ok)
	d.do(alice, "GET", R+"/issues", nil, ok)
	d.do(alice, "GET", "/search/issues?q="+url.QueryEscape("repo:acme/catalog is:pr is:open"), nil, ok)
	rcID := field(d.do(bob, "POST", P+"/comments", map[string]any{"body": "why 2?", "commit_id": head,
		"path": "network/upf/cm.yaml", "line": 1, "side": "RIGHT"}, created), "id")
	d.do(alice, "GET", P+"/comments", nil, ok)
	d.do(alice, "GET", R+"/pulls/comments", nil, ok)
	d.do(alice, "GET", R+"/pulls/comments/"+rcID, nil, ok)

	// Reviews: a pending one edited and submitted, one deleted, an
	// approval dismissed and one that stays.
	pending := field(d.do(bob, "POST", P+"/reviews", map[string]any{"body": "looking"}, ok), "id")
	d.do(bob, "PUT", P+"/reviews/"+pending, map[string]any{"body": "looked"}, ok)
	d.do(bob, "POST", P+"/reviews/"+pending+"/events", map[string]any{"event": "COMMENT", "body": "looked"}, ok)
	d.do(bob, "PUT", P+"/reviews/"+pending, map[string]any{"body": "looked closely"}, ok)
	drop := field(d.do(bob, "POST", P+"/reviews", map[string]any{"body": "draft"}, ok), "id")
	d.do(bob, "DELETE", P+"/reviews/"+drop, nil, ok)
	approval := field(d.do(bob, "POST", P+"/reviews", map[string]any{"event": "APPROVE", "body": "lgtm"}, ok), "id")
	d.do(alice, "PUT", P+"/reviews/"+approval+"/dismissals", map[string]any{"message": "stale"}, ok)
	d.do(bob, "POST", P+"/reviews", map[string]any{"event": "APPROVE", "body": "lgtm again"}, ok)
	d.do(alice, "GET", P+"/reviews", nil, ok)
	d.do(alice, "GET", P+"/reviews/"+approval, nil, ok)

	// The render: a check run and suite, and a commit status.
	run := field(d.do(inst, "POST", R+"/check-runs", map[string]any{"name": "porchbot/render", "head_sha": head,
		"status": "in_progress", "external_id": "render-1", "details_url": "https://porchbot.example/render/1",
		"output": map[string]any{"title": "Rendering", "summary": "Running the pipeline"}}, created), "id")
	d.do(inst, "GET", R+"/check-runs/"+run, nil, ok)
	d.do(inst, "PATCH", R+"/check-runs/"+run, map[string]any{"conclusion": "success", "output": map[string]any{
		"title": "Rendered", "summary": "1 function passed", "annotations": []any{map[string]any{
			"path": "network/upf/cm.yaml", "start_line": 1, "end_line": 1, "annotation_level": "notice", "message": "namespace set"}}}}, ok)
	d.do(inst, "GET", R+"/check-runs/"+run+"/annotations", nil, ok)
	d.do(inst, "POST", R+"/check-runs/"+run+"/rerequest", nil, created)
	// The suite exists (made by the push, as on GitHub): 200, not 201.
	suite := field(d.do(inst, "POST", R+"/check-suites", map[string]any{"head_sha": main}, ok), "id")
	d.do(inst, "GET", R+"/check-suites/"+suite, nil, ok)
	d.do(inst, "GET", R+"/check-suites/"+suite+"/check-runs", nil, ok)
	d.do(inst, "POST", R+"/check-suites/"+suite+"/rerequest", nil, created)
	d.do(inst, "GET", R+"/commits/"+head+"/check-runs", nil, ok)
	d.do(inst, "GET", R+"/commits/"+head+"/check-suites", nil, ok)
	d.do(inst, "POST", R+"/statuses/"+head, map[string]any{"state": "success", "context": "porchbot/render",
		"description": "rendered", "target_url": "https://porchbot.example/render/1"}, created)
	d.do(inst, "GET", R+"/commits/"+head+"/statuses", nil, ok)
	d.do(inst, "GET", R+"/commits/"+head+"/status", nil, ok)

	// Close, reopen, merge.
	d.do(alice, "PATCH", P, map[string]any{"state": "closed"}, ok)
	d.do(alice, "PATCH", P, map[string]any{"state": "open"}, ok)
	d.do(alice, "PUT", P+"/merge", map[string]any{"merge_method": "merge", "commit_title": "Merge network/upf w1"}, ok)
	d.do(alice, "GET", P+"/merge", nil, noContent)
	d.do(alice, "GET", R+"/issues/events", nil, ok)
	ev := field(d.do(alice, "GET", I+"/events", nil, ok), "0.id")
	d.do(alice, "GET", R+"/issues/events/"+ev, nil, ok)
	d.do(alice, "GET", I+"/timeline", nil, ok)
	d.do(alice, "GET", R+"/activity?per_page=1", nil, ok)

	// Deployments: of the draft, behind main, main is merged in first
	// (auto_merge: 202); one refused for a context not passing (409); one
	// of main reported in progress by the App, then a success.
	d.do(alice, "POST", R+"/deployments", map[string]any{"ref": draft, "required_contexts": []string{}}, http.StatusAccepted)
	d.do(alice, "POST", R+"/deployments", map[string]any{"ref": "main", "required_contexts": []string{"ci/e2e"}}, http.StatusConflict)
	dep := field(d.do(inst, "POST", R+"/deployments", map[string]any{"ref": "main", "environment": "edge",
		"payload": map[string]any{"site": "edge-1"}, "description": "Deploy network/upf", "required_contexts": []string{}}, created), "id")
	D := R + "/deployments/" + dep
	d.do(alice, "GET", R+"/deployments?environment=edge", nil, ok)
	d.do(alice, "GET", D, nil, ok)
	d.do(inst, "POST", D+"/statuses", map[string]any{"state": "in_progress", "log_url": "https://flux.example/edge-1",
		"environment_url": "https://edge-1.example"}, created)
	deployed := field(d.do(alice, "POST", D+"/statuses", map[string]any{"state": "success", "description": "Applied",
		"log_url": "https://flux.example/edge-1", "environment_url": "https://edge-1.example"}, created), "id")
	d.do(alice, "GET", D+"/statuses", nil, ok)
	d.do(alice, "GET", D+"/statuses/"+deployed, nil, ok)

	// The publication.
	d.do(alice, "POST", R+"/releases/generate-notes", map[string]any{"tag_name": "network/upf/v1", "target_commitish": "main"}, ok)
	rel := field(d.do(alice, "POST", R+"/releases", map[string]any{"tag_name": "network/upf/v1", "target_commitish": "main",
		"name": "network/upf v1", "body": "First revision"}, created), "id")
	d.do(alice, "GET", R+"/releases", nil, ok)
	d.do(alice, "GET", R+"/releases/latest", nil, ok)
	d.do(alice, "GET", R+"/releases/tags/network/upf/v1", nil, ok)
	d.do(alice, "GET", R+"/releases/"+rel, nil, ok)
	d.do(alice, "PATCH", R+"/releases/"+rel, map[string]any{"body": "First revision of upf"}, ok)
	asset := field(d.upload(alice, R+"/releases/"+rel+"/assets?name=index.yaml", "application/yaml", []byte("kind: PackageIndex\n"), created), "id")
	d.do(alice, "GET", R+"/releases/"+rel+"/assets", nil, ok)
	d.do(alice, "GET", R+"/releases/assets/"+asset, nil, ok)
	d.do(alice, "GET", R+"/releases/"+rel, nil, ok) // with its asset
	d.do(alice, "DELETE", R+"/releases/assets/"+asset, nil, noContent)
	pre := field(d.do(alice, "POST", R+"/releases", map[string]any{"tag_name": "network/upf/v2-rc", "target_commitish": "main",
		"name": "network/upf v2-rc", "prerelease": true}, created), "id")
	d.do(alice, "DELETE", R+"/releases/"+pre, nil, noContent)
	d.do(alice, "GET", R+"/tags", nil, ok)
	d.do(alice, "DELETE", R+"/labels/kind-network", nil, noContent)

	// GitHub's errors, as the description documents them for these
	// operations.
	// The reads porchbot repeats, revalidated: 304.
	d.revalidate(alice, P)
	d.revalidate(inst, R+"/commits/"+head+"/check-runs")
	d.revalidate(alice, I+"/comments")
	d.do(alice, "GET", R+"/pulls/9999", nil, notFound)
	d.do(alice, "GET", "/repos/acme/nothing", nil, notFound)
	d.do(alice, "GET", R+"/git/ref/heads/nothing", nil, notFound)
	d.do(alice, "POST", R+"/pulls", map[string]any{"title": "x", "head": "nothing", "base": "main"}, http.StatusUnprocessableEntity)
	d.do(alice, "POST", R+"/labels", map[string]any{"name": "porch/proposed", "color": "0e8a16"}, http.StatusUnprocessableEntity)
	d.do("bad-token", "GET", "/user", nil, http.StatusUnauthorized)

	// The repository hook's deliveries, one redelivered, then the hook
	// removed.
	env.WaitDeliveries(t)
	dl := field(d.do(alice, "GET", R+"/hooks/"+hookID+"/deliveries", nil, ok), "0.id")
	d.do(alice, "GET", R+"/hooks/"+hookID+"/deliveries/"+dl, nil, ok)
	d.do(alice, "POST", R+"/hooks/"+hookID+"/deliveries/"+dl+"/attempts", nil, http.StatusAccepted)
	env.WaitDeliveries(t)
	d.do(alice, "DELETE", R+"/hooks/"+hookID, nil, noContent)

	// The App's own deliveries, one redelivered.
	appDl := field(d.do(app, "GET", "/app/hook/deliveries?per_page=2", nil, ok), "0.id")
	d.do(app, "GET", "/app/hook/deliveries/"+appDl, nil, ok)
	d.do(app, "POST", "/app/hook/deliveries/"+appDl+"/attempts", nil, http.StatusAccepted)
	env.WaitDeliveries(t)
	d.do("", "POST", "/app-manifests/"+manifestCode(t, env, "/settings/apps/new")+"/conversions", nil, created) // last: it re-keys the App
}
