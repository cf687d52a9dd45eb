package forge

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesTeams serves organisations, their members and teams: what it
// takes to evaluate approvers such as "@acme/platform". Members of the
// organisation and the App's installation on it (members: read) may read
// them; to anyone else they do not exist (404), as GitHub hides private
// memberships and secret teams.
func (f *Forge) routesTeams(api *mux.Router) {
	api.HandleFunc("/orgs/{org}", f.getOrg).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/members", f.listOrgMembers).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/members/{user}", f.checkOrgMember).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/memberships/{user}", f.getOrgMembership).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/teams", f.listTeams).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/teams/{slug}", f.getTeam).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/teams/{slug}/members", f.listTeamMembers).Methods(http.MethodGet)
	api.HandleFunc("/orgs/{org}/teams/{slug}/memberships/{user}", f.getTeamMembership).Methods(http.MethodGet)
}

// SetTeamMaintainer makes a team member a maintainer of the team (role
// "maintainer" in memberships), adding them to the team if needed.
func (f *Forge) SetTeamMaintainer(org, slug, login string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	o, ok := f.orgs[strings.ToLower(org)]
	if !ok {
		return fmt.Errorf("forge: no organisation %q", org)
	}
	t, ok := o.Teams[strings.ToLower(slug)]
	if !ok {
		return fmt.Errorf("forge: no team %s/%s", org, slug)
	}
	l := strings.ToLower(login)
	if t.Maintainers == nil {
		t.Maintainers = map[string]bool{}
	}
	t.Maintainers[l] = true
	t.Members[l] = true
	o.Members[l] = true
	return nil
}

// orgView is a copy of an organisation taken under f.mu.
type orgView struct {
	account *Account
	members []string // lower-cased, sorted
	teams   []teamView
}

type teamView struct {
	id          int64
	slug, name  string
	members     []string // lower-cased, sorted
	maintainers map[string]bool
}

func trueKeysSorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// orgReadable resolves {org} for a caller that may read its members and
// teams: a member, or the App's installation on it.
func (f *Forge) orgReadable(w http.ResponseWriter, r *http.Request) (*orgView, bool) {
	p := caller(r)
	f.mu.RLock()
	o, ok := f.orgs[strings.ToLower(mux.Vars(r)["org"])]
	var v orgView
	if ok {
		v.account = o.Account
		v.members = trueKeysSorted(o.Members)
		for _, t := range o.Teams {
			tv := teamView{id: t.ID, slug: t.Slug, name: t.Name, members: trueKeysSorted(t.Members), maintainers: map[string]bool{}}
			for m, yes := range t.Maintainers {
				tv.maintainers[m] = yes
			}
			v.teams = append(v.teams, tv)
		}
	}
	f.mu.RUnlock()
	if !ok {
		notFound(w)
		return nil, false
	}
	sort.Slice(v.teams, func(i, j int) bool { return v.teams[i].slug < v.teams[j].slug })
	allowed := false
	if p != nil {
		switch p.kind {
		case principalInstallation:
			allowed = p.installation.Account.ID == v.account.ID
		case principalUser:
			for _, m := range v.members {
				if m == strings.ToLower(p.account.Login) {
					allowed = true
				}
			}
		}
	}
	if !allowed {
		notFound(w)
		return nil, false
	}
	return &v, true
}

func (v *orgView) team(slug string) (*teamView, bool) {
	for i := range v.teams {
		if v.teams[i].slug == strings.ToLower(slug) {
			return &v.teams[i], true
		}
	}
	return nil, false
}

// getOrg is GET /orgs/{org}; anyone may read an organisation's profile.
func (f *Forge) getOrg(w http.ResponseWriter, r *http.Request) {
	o, ok := f.org(mux.Vars(r)["org"])
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, r, http.StatusOK, f.orgFullObject(o.Account))
}

func (f *Forge) listOrgMembers(w http.ResponseWriter, r *http.Request) {
	v, ok := f.orgReadable(w, r)
	if !ok {
		return
	}
	role := r.URL.Query().Get("role")
	if role != "" && role != "all" && role != "member" && role != "admin" {
		validationFailed(w, "Organization", "role", "invalid", "role must be all, admin or member")
		return
	}
	var users []*github.User
	if role != "admin" { // the forge's organisations have no owners among members
		for _, m := range v.members {
			if a, ok := f.Account(m); ok {
				users = append(users, f.userObject(a))
			}
		}
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), users))
}

func (f *Forge) checkOrgMember(w http.ResponseWriter, r *http.Request) {
	v, ok := f.orgReadable(w, r)
	if !ok {
		return
	}
	if slices.Contains(v.members, strings.ToLower(mux.Vars(r)["user"])) {
		noContent(w)
		return
	}
	notFound(w)
}

func (f *Forge) getOrgMembership(w http.ResponseWriter, r *http.Request) {
	v, ok := f.orgReadable(w, r)
	if !ok {
		return
	}
	a, found := f.Account(mux.Vars(r)["user"])
	if !found || !slices.Contains(v.members, strings.ToLower(a.Login)) {
		notFound(w)
		return
	}
	api := f.apiBase()
	writeJSON(w, r, http.StatusOK, &github.Membership{
		URL:   github.String(api + "/orgs/" + v.account.Login + "/memberships/" + a.Login),
		State: github.String("active"), Role: github.String("member"),
		OrganizationURL: github.String(api + "/orgs/" + v.account.Login),
		Organization:    f.orgObject(v.account), User: f.userObject(a),
	})
}

// teamObject is a team as GitHub shows it.
func (f *Forge) teamObject(org *Account, t *teamView) *github.Team {
	api := fmt.Sprintf("%s/organizations/%d/team/%d", f.apiBase(), org.ID, t.id)
	return &github.Team{
		ID: github.Int64(t.id), NodeID: github.String(nodeID("Team", t.id)),
		Name: github.String(t.name), Slug: github.String(t.slug), Description: github.String(""),
		Privacy: github.String("closed"), Permission: github.String("pull"),
		URL: github.String(api), HTMLURL: github.String(f.webBase() + "/orgs/" + org.Login + "/teams/" + t.slug),
		MembersURL: github.String(api + "/members{/member}"), RepositoriesURL: github.String(api + "/repos"),
	}
}

func (f *Forge) listTeams(w http.ResponseWriter, r *http.Request) {
	v, ok := f.orgReadable(w, r)
	if !ok {
		return
	}
	teams := make([]*github.Team, 0, len(v.teams))
	for i := range v.teams {
		teams = append(teams, f.teamObject(v.account, &v.teams[i]))
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), teams))
}

func (f *Forge) teamByVar(w http.ResponseWriter, r *http.Request) (*orgView, *teamView, bool) {
	v, ok := f.orgReadable(w, r)
	if !ok {
		return nil, nil, false
	}
	t, ok := v.team(mux.Vars(r)["slug"])
	if !ok {
		notFound(w)
		return nil, nil, false
	}
	return v, t, true
}

func (f *Forge) getTeam(w http.ResponseWriter, r *http.Request) {
	v, t, ok := f.teamByVar(w, r)
	if !ok {
		return
	}
	obj := objectMap(f.teamObject(v.account, t))
	obj["members_count"] = len(t.members)
	obj["repos_count"] = 0 // the forge grants teams no repositories
	obj["created_at"], obj["updated_at"] = ts(accountsEpoch), ts(accountsEpoch)
	obj["organization"] = f.orgFullObject(v.account)
	writeJSON(w, r, http.StatusOK, obj)
}

func (f *Forge) listTeamMembers(w http.ResponseWriter, r *http.Request) {
	_, t, ok := f.teamByVar(w, r)
	if !ok {
		return
	}
	role := r.URL.Query().Get("role")
	if role != "" && role != "all" && role != "member" && role != "maintainer" {
		validationFailed(w, "Team", "role", "invalid", "role must be all, member or maintainer")
		return
	}
	var users []*github.User
	for _, m := range t.members {
		if role == "maintainer" && !t.maintainers[m] || role == "member" && t.maintainers[m] {
			continue
		}
		if a, ok := f.Account(m); ok {
			users = append(users, f.userObject(a))
		}
	}
	writeJSON(w, r, http.StatusOK, paginate(w, r, f.BaseURL(), users))
}

func (f *Forge) getTeamMembership(w http.ResponseWriter, r *http.Request) {
	v, t, ok := f.teamByVar(w, r)
	if !ok {
		return
	}
	login := strings.ToLower(mux.Vars(r)["user"])
	a, found := f.Account(login)
	if !found || !slices.Contains(t.members, login) {
		notFound(w)
		return
	}
	role := "member"
	if t.maintainers[login] {
		role = "maintainer"
	}
	writeJSON(w, r, http.StatusOK, &github.Membership{
		URL:   github.String(fmt.Sprintf("%s/organizations/%d/team/%d/memberships/%s", f.apiBase(), v.account.ID, t.id, a.Login)),
		State: github.String("active"), Role: github.String(role),
	})
}
