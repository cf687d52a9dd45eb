package forge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// TestIssuesWebhooks: a plain issue's life sends issues opened, edited
// (with the body it had), closed (closed_by and sender the closer) and
// reopened, as GitHub does; an App
// whose registration lists its events hears only those (the installation
// events aside).
func TestIssuesWebhooks(t *testing.T) {
	env := forgetest.New(t)
	hooks := newFidHookRecorder(t, env)
	ctx := context.Background()
	alice, bob := env.Client(forgetest.AliceToken), env.Client(forgetest.BobToken)

	is, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Package dashboard"),
		Body: github.String("- [ ] re-render")})
	if err != nil {
		t.Fatal(err)
	}
	n := is.GetNumber()
	if _, _, err := bob.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{Body: github.String("- [x] re-render")}); err != nil {
		t.Fatal(err)
	}
	closed, _, err := bob.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{State: github.String("closed")})
	if err != nil || closed.GetClosedBy().GetLogin() != "bob" || closed.ClosedAt == nil {
		t.Fatalf("closed: %v closed_by %q", err, closed.GetClosedBy().GetLogin())
	}
	got, _, err := alice.Issues.Get(ctx, "acme", "catalog", n)
	if err != nil || got.GetState() != "closed" || got.GetClosedBy().GetLogin() != "bob" {
		t.Fatalf("get closed: %v %s", err, github.Stringify(got.GetClosedBy()))
	}
	reopened, _, err := alice.Issues.Edit(ctx, "acme", "catalog", n, &github.IssueRequest{State: github.String("open")})
	if err != nil || reopened.ClosedBy != nil {
		t.Fatalf("reopened: %v closed_by %v", err, reopened.ClosedBy)
	}
	env.WaitDeliveries(t)

	var actions []string
	for _, d := range hooks.of("issues", "") {
		ev, err := github.ParseWebHook(d.event, d.body)
		if err != nil {
			t.Fatal(err)
		}
		ie := ev.(*github.IssuesEvent)
		if ie.GetIssue().GetNumber() != n || ie.GetRepo().GetFullName() != "acme/catalog" ||
			ie.GetInstallation().GetID() != env.Installation.ID || !d.sigOK {
			t.Errorf("%s: %s", d.action, github.Stringify(ie))
		}
		actions = append(actions, d.action+":"+ie.GetSender().GetLogin())
		switch d.action {
		case "edited":
			if ie.GetChanges().GetBody().GetFrom() != "- [ ] re-render" || ie.GetIssue().GetBody() != "- [x] re-render" {
				t.Errorf("edited changes: %s", github.Stringify(ie.GetChanges()))
			}
		case "closed":
			if ie.GetIssue().GetState() != "closed" || ie.GetIssue().GetClosedBy().GetLogin() != "bob" {
				t.Errorf("closed issue: %s", github.Stringify(ie.GetIssue()))
			}
		}
	}
	if strings.Join(actions, ",") != "opened:alice,edited:bob,closed:bob,reopened:alice" {
		t.Fatalf("issues deliveries: %v", actions)
	}

	// The App hears only the events it subscribes to.
	env.Forge.SetAppEvents([]string{"push"})
	hooks.reset()
	if _, _, err := alice.Issues.Create(ctx, "acme", "catalog", &github.IssueRequest{Title: github.String("Unheard")}); err != nil {
		t.Fatal(err)
	}
	env.WaitDeliveries(t)
	if n := len(hooks.of("issues", "")); n != 0 {
		t.Fatalf("an App not subscribed to issues got %d deliveries", n)
	}
}
