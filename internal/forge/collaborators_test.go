package forge_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// permissionAnswer is the permission endpoint's body, role_name included
// (go-github v60 does not model it).
type permissionAnswer struct {
	Permission string       `json:"permission"`
	RoleName   string       `json:"role_name"`
	User       *github.User `json:"user"`
}

func getPermission(t *testing.T, c *github.Client, user string) (permissionAnswer, *github.Response, error) {
	t.Helper()
	req, err := c.NewRequest(http.MethodGet, "repos/acme/catalog/collaborators/"+user+"/permission", nil)
	if err != nil {
		t.Fatal(err)
	}
	var out permissionAnswer
	resp, err := c.Do(context.Background(), req, &out)
	return out, resp, err
}

func TestCollaboratorPermission(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	for _, login := range []string{"mia", "tom"} {
		if _, err := env.Forge.AddUser(login, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := env.Forge.SetCollaborator(env.CatalogRepo, "mia", forge.PermMaintain); err != nil {
		t.Fatal(err)
	}
	if err := env.Forge.SetCollaborator(env.CatalogRepo, "tom", forge.PermTriage); err != nil {
		t.Fatal(err)
	}
	inst := env.Client(env.InstallationToken(t))
	for login, want := range map[string][2]string{
		"alice": {"admin", "admin"}, "bob": {"write", "write"}, "carol": {"read", "read"},
		"mia": {"write", "maintain"}, "tom": {"read", "triage"}, "mallory": {"none", "none"},
		"porchbot[bot]": {"write", "write"},
	} {
		got, _, err := getPermission(t, inst, login)
		if err != nil {
			t.Fatalf("%s: %v", login, err)
		}
		if got.Permission != want[0] || got.RoleName != want[1] || got.User.GetLogin() != login ||
			got.User.GetRoleName() != want[1] {
			t.Errorf("%s: %+v, want %v", login, got, want)
		}
		// go-github's own type decodes it.
		lvl, _, err := inst.Repositories.GetPermissionLevel(ctx, "acme", "catalog", login)
		if err != nil || lvl.GetPermission() != want[0] {
			t.Errorf("%s via go-github: %v %v", login, lvl, err)
		}
	}
	if got, _, _ := getPermission(t, inst, "bob"); !got.User.GetPermissions()["push"] || got.User.GetPermissions()["admin"] {
		t.Errorf("bob's permissions map: %v", got.User.GetPermissions())
	}
	_, resp, err := getPermission(t, inst, "nobody")
	chkWantStatus(t, "unknown user", resp, err, http.StatusNotFound)
	_, resp, err = getPermission(t, env.Client(forgetest.MalloryToken), "alice")
	chkWantStatus(t, "private repo, no access", resp, err, http.StatusNotFound)
}

func TestCollaboratorsListAndCheck(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	bob := env.Client(forgetest.BobToken)
	users, _, err := bob.Repositories.ListCollaborators(ctx, "acme", "catalog", nil)
	if err != nil {
		t.Fatal(err)
	}
	var logins []string
	for _, u := range users {
		logins = append(logins, u.GetLogin()+":"+u.GetRoleName())
	}
	if strings.Join(logins, ",") != "alice:admin,bob:write,carol:read" {
		t.Fatalf("collaborators: %v", logins)
	}
	users, _, err = bob.Repositories.ListCollaborators(ctx, "acme", "catalog", &github.ListCollaboratorsOptions{Permission: "push"})
	if err != nil || len(users) != 1 || users[0].GetLogin() != "bob" || !users[0].GetPermissions()["push"] {
		t.Fatalf("permission=push: %v %v", users, err)
	}
	users, _, err = bob.Repositories.ListCollaborators(ctx, "acme", "catalog", &github.ListCollaboratorsOptions{Affiliation: "outside"})
	if err != nil || len(users) != 1 || users[0].GetLogin() != "carol" {
		t.Fatalf("affiliation=outside: %v %v", users, err)
	}
	users, resp, err := env.Client(env.InstallationToken(t)).Repositories.ListCollaborators(ctx, "acme", "catalog",
		&github.ListCollaboratorsOptions{ListOptions: github.ListOptions{PerPage: 2}})
	if err != nil || len(users) != 2 || resp.NextPage != 2 {
		t.Fatalf("installation, paginated: %v next %d %v", users, resp.NextPage, err)
	}
	_, resp, err = env.Client(forgetest.CarolToken).Repositories.ListCollaborators(ctx, "acme", "catalog", nil)
	chkWantStatus(t, "reader lists", resp, err, http.StatusForbidden)

	for login, want := range map[string]bool{"alice": true, "carol": true, "mallory": false, "nobody": false} {
		got, _, err := bob.Repositories.IsCollaborator(ctx, "acme", "catalog", login)
		if err != nil || got != want {
			t.Errorf("IsCollaborator(%s) = %v %v, want %v", login, got, err, want)
		}
	}
}

func TestTeamsAndMembers(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	if _, err := env.Forge.AddTeam("acme", "reviewers", "bob", "carol"); err != nil {
		t.Fatal(err)
	}
	if err := env.Forge.SetTeamMaintainer("acme", "reviewers", "bob"); err != nil {
		t.Fatal(err)
	}
	inst := env.Client(env.InstallationToken(t))
	m, _, err := inst.Teams.GetTeamMembershipBySlug(ctx, "acme", "platform", "alice")
	if err != nil || m.GetState() != "active" || m.GetRole() != "member" || m.GetURL() == "" {
		t.Fatalf("alice in platform: %v %v", m, err)
	}
	m, _, err = inst.Teams.GetTeamMembershipBySlug(ctx, "acme", "reviewers", "bob")
	if err != nil || m.GetRole() != "maintainer" {
		t.Fatalf("bob maintains reviewers: %v %v", m, err)
	}
	_, resp, err := inst.Teams.GetTeamMembershipBySlug(ctx, "acme", "platform", "bob")
	chkWantStatus(t, "bob not in platform", resp, err, http.StatusNotFound)
	_, resp, err = inst.Teams.GetTeamMembershipBySlug(ctx, "acme", "nope", "alice")
	chkWantStatus(t, "no team", resp, err, http.StatusNotFound)
	_, resp, err = env.Client(forgetest.MalloryToken).Teams.GetTeamMembershipBySlug(ctx, "acme", "platform", "alice")
	chkWantStatus(t, "outsider", resp, err, http.StatusNotFound)
	if _, _, err := env.Client(forgetest.AliceToken).Teams.GetTeamMembershipBySlug(ctx, "acme", "platform", "alice"); err != nil {
		t.Fatalf("member reads: %v", err)
	}

	teams, _, err := inst.Teams.ListTeams(ctx, "acme", nil)
	if err != nil || len(teams) != 2 || teams[0].GetSlug() != "platform" || teams[1].GetSlug() != "reviewers" {
		t.Fatalf("teams: %v %v", teams, err)
	}
	team, _, err := inst.Teams.GetTeamBySlug(ctx, "acme", "reviewers")
	if err != nil || team.GetMembersCount() != 2 || team.GetOrganization().GetLogin() != "acme" {
		t.Fatalf("team: %v %v", team, err)
	}
	members, _, err := inst.Teams.ListTeamMembersBySlug(ctx, "acme", "reviewers", nil)
	if err != nil || len(members) != 2 {
		t.Fatalf("members: %v %v", members, err)
	}
	members, _, err = inst.Teams.ListTeamMembersBySlug(ctx, "acme", "reviewers", &github.TeamListTeamMembersOptions{Role: "maintainer"})
	if err != nil || len(members) != 1 || members[0].GetLogin() != "bob" {
		t.Fatalf("maintainers: %v %v", members, err)
	}
	for login, want := range map[string]bool{"alice": true, "carol": true, "mallory": false} {
		got, _, err := inst.Organizations.IsMember(ctx, "acme", login)
		if err != nil || got != want {
			t.Errorf("IsMember(%s) = %v %v, want %v", login, got, err, want)
		}
	}
	orgMembers, _, err := inst.Organizations.ListMembers(ctx, "acme", nil)
	if err != nil || len(orgMembers) != 3 {
		t.Fatalf("org members: %v %v", orgMembers, err)
	}
	ms, _, err := inst.Organizations.GetOrgMembership(ctx, "carol", "acme")
	if err != nil || ms.GetState() != "active" {
		t.Fatalf("org membership: %v %v", ms, err)
	}
	org, _, err := env.Client(forgetest.MalloryToken).Organizations.Get(ctx, "acme")
	if err != nil || org.GetLogin() != "acme" || org.GetType() != "Organization" {
		t.Fatalf("org: %v %v", org, err)
	}
	if err := env.Forge.SetTeamMaintainer("acme", "nope", "bob"); err == nil {
		t.Fatal("SetTeamMaintainer on a missing team succeeded")
	}
	raw, _ := json.Marshal(team)
	if !strings.Contains(string(raw), `"privacy":"closed"`) {
		t.Errorf("team JSON: %s", raw)
	}
}
