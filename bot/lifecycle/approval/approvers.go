package approval

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
)

// ApproverResolver decides who may approve under approvals.approvers:
// listed logins (no call), members of listed teams "@org/team" (one
// GetTeamMembershipBySlug per distinct user and team, active membership
// only), or, when the list is empty, users with write, maintain or admin
// permission on the repository (one GetPermissionLevel per distinct user).
// Answers are cached for the resolver's life: make one per evaluation.
type ApproverResolver struct {
	repos     ApproverRepos
	teams     ApproverTeams
	owner     string
	repo      string
	approvers []config.UserOrTeam

	users   map[string]approverAnswer // by folded login
	members map[string]approverAnswer // by "org/team\x00login", folded
	shared  *MembershipCache          // across evaluations; may be nil
	lookups int
}

type approverAnswer struct {
	allowed bool
	note    string
}

// NewApproverResolver resolves approvers of repo under the approvers list.
func NewApproverResolver(api ProposalAPI, repo core.Repo, approvers []config.UserOrTeam) *ApproverResolver {
	return &ApproverResolver{repos: api.Repos, teams: api.Teams, owner: repo.Owner, repo: repo.Name,
		approvers: approvers, users: map[string]approverAnswer{}, members: map[string]approverAnswer{},
		shared: api.Memberships}
}

// Lookups is the number of GitHub calls made so far.
func (r *ApproverResolver) Lookups() int { return r.lookups }

// Allowed reports whether user may approve; note says why not ("has read
// access", "not a member of @acme/platform"). Errors are those worth
// retrying (server errors, rate limits, transport); a refusal to look
// (403) is a note on a negative answer, so that the check still reports.
func (r *ApproverResolver) Allowed(ctx context.Context, user string) (bool, string, error) {
	key := LoginKey(user)
	if key == "" {
		return false, "no user", nil
	}
	if a, ok := r.users[key]; ok {
		return a.allowed, a.note, nil
	}
	var a approverAnswer
	var err error
	if len(r.approvers) == 0 {
		a, err = r.writeAccess(ctx, user)
	} else {
		a, err = r.listed(ctx, user)
	}
	if err != nil {
		return false, "", err
	}
	r.users[key] = a
	return a.allowed, a.note, nil
}

// writeAccess: anyone with write access (legacy permission admin or write,
// which GitHub also answers for maintain).
func (r *ApproverResolver) writeAccess(ctx context.Context, user string) (approverAnswer, error) {
	r.lookups++
	lvl, err := r.repos.Permission(ctx, r.owner, r.repo, user)
	if err != nil {
		if hub.IsNotFound(err) {
			return approverAnswer{note: "@" + user + " has no access to the repository"}, nil
		}
		if note, ok := lookupRefused(err); ok {
			return approverAnswer{note: "the permission of @" + user + " could not be checked (" + note + ")"}, nil
		}
		return approverAnswer{}, fmt.Errorf("permission of %s on %s/%s: %w", user, r.owner, r.repo, err)
	}
	switch p := lvl.Level; p {
	case "admin", "maintain", "write":
		return approverAnswer{allowed: true}, nil
	case "", "none":
		return approverAnswer{note: "@" + user + " has no access to the repository"}, nil
	default:
		return approverAnswer{note: fmt.Sprintf("@%s has %s access", user, p)}, nil
	}
}

// listed: a listed login, else an active member of a listed team.
func (r *ApproverResolver) listed(ctx context.Context, user string) (approverAnswer, error) {
	key := LoginKey(user)
	for _, a := range r.approvers {
		if !a.IsTeam() && LoginKey(a.Login) == key {
			return approverAnswer{allowed: true}, nil
		}
	}
	var notes []string
	for _, a := range r.approvers {
		if !a.IsTeam() {
			continue
		}
		m, err := r.member(ctx, a, user)
		if err != nil {
			return approverAnswer{}, err
		}
		if m.allowed {
			return m, nil
		}
		if m.note != "" {
			notes = append(notes, m.note)
		}
	}
	if len(notes) == 0 {
		return approverAnswer{note: "@" + user + " is not listed"}, nil
	}
	return approverAnswer{note: strings.Join(notes, "; ")}, nil
}

func (r *ApproverResolver) member(ctx context.Context, team config.UserOrTeam, user string) (approverAnswer, error) {
	key := strings.ToLower(team.Org+"/"+team.Team) + "\x00" + LoginKey(user)
	if a, ok := r.members[key]; ok {
		return a, nil
	}
	if a, ok := r.shared.get(key); ok {
		r.members[key] = a
		return a, nil
	}
	r.lookups++
	m, err := r.teams.TeamMembership(ctx, team.Org, team.Team, user)
	var a approverAnswer
	switch {
	case err == nil && m.State == "active":
		a = approverAnswer{allowed: true}
		r.shared.put(key, a)
	case err == nil:
		a = approverAnswer{note: fmt.Sprintf("@%s's membership of %s is %s", user, team, m.State)}
	case hub.IsNotFound(err):
		a = approverAnswer{note: fmt.Sprintf("@%s is not a member of %s", user, team)}
		r.shared.put(key, a)
	default:
		note, ok := lookupRefused(err)
		if !ok {
			return approverAnswer{}, fmt.Errorf("membership of %s in %s: %w", user, team, err)
		}
		a = approverAnswer{note: fmt.Sprintf("membership of %s could not be checked (%s)", team, note)}
	}
	r.members[key] = a
	return a, nil
}

// lookupRefused tells a definite refusal (404, 401, 403 that is not a rate
// limit, 422) from an error worth retrying; it returns a note for the former.
func lookupRefused(err error) (string, bool) {
	var he *hub.Error
	if !errors.As(err, &he) || he.RateLimited {
		return "", false
	}
	switch he.Status {
	case http.StatusNotFound:
		return "not found", true
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusUnprocessableEntity:
		msg := http.StatusText(he.Status)
		if he.Message != "" {
			msg += ": " + he.Message
		}
		return msg, true
	}
	return "", false
}
