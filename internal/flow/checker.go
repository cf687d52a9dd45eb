package flow

import (
	"context"
	"fmt"

	"github.com/porchbot/porchbot/internal/hub"
)

// API is what the Checker asks GitHub (a part of hub.API).
type API interface {
	PermissionAPI
	GetRepository(ctx context.Context, owner, repo string) (hub.Repository, error)
	CommitAuthor(ctx context.Context, owner, repo, sha string) (string, error)
}

// Checker applies the rule with facts from GitHub. REST calls, each only
// when the rule needs the answer and no cache has it: the source's
// visibility (1, a minute), the target's (1, a minute; none when the
// source is public), the configuration commit's author (1, kept for
// good), the requester's permission on the source (1, a minute; none when
// the source is public or vouched for) and on the target (1, a minute;
// none when vouched for). The zero value is ready; one per process, shared.
type Checker struct {
	Permissions  *PermissionCache
	Visibilities VisibilityCache
	Authors      AuthorCache
}

// Check is nil when the content may flow, a *Refusal when the rule
// refuses it, another error when a fact could not be had.
func (c *Checker) Check(ctx context.Context, req Request) error {
	f := Facts{Source: req.Source.FullName(), Target: req.Target.FullName(), AllowWider: req.AllowWider, Requester: req.Requester}
	if r := Decide(f); r == nil {
		return nil // a repository into itself
	}
	var err error
	if f.SourceVisibility, err = c.visibility(ctx, req.Source); err != nil {
		return err
	}
	// The requester is resolved (the configuration commit's author) only
	// when an access must be looked up.
	requester := func() (string, error) {
		if f.Requester == "" && req.Commit != "" {
			f.Requester, err = c.Authors.Login(ctx, req.CommitRepo.API, req.CommitRepo.Owner, req.CommitRepo.Name, req.Commit)
		}
		return f.Requester, err
	}
	if f.CanReadSource = req.SourceVouched || f.SourceVisibility == Public; !f.CanReadSource {
		level, err := c.requesterLevel(ctx, req.Source, requester)
		if err != nil {
			return err
		}
		if f.CanReadSource = CanRead(level); !f.CanReadSource {
			return refusal(f)
		}
	}
	f.TargetVisibility = req.Target.Visibility
	if f.SourceVisibility != Public {
		if f.TargetVisibility, err = c.visibility(ctx, req.Target); err != nil {
			return err
		}
	}
	if Widens(f.SourceVisibility, f.TargetVisibility) && !f.AllowWider && req.Allow != nil {
		if f.AllowWider, err = req.Allow(ctx); err != nil {
			return err
		}
	}
	if Widens(f.SourceVisibility, f.TargetVisibility) && !f.AllowWider {
		return refusal(f)
	}
	if f.CanWriteTarget = req.TargetVouched; !f.CanWriteTarget {
		level, err := c.requesterLevel(ctx, req.Target, requester)
		if err != nil {
			return err
		}
		f.CanWriteTarget = CanWrite(level)
	}
	return refusal(f)
}

// requesterLevel is the requester's permission on r, "" when porchbot
// cannot tell who the requester is.
func (c *Checker) requesterLevel(ctx context.Context, r Repo, requester func() (string, error)) (string, error) {
	login, err := requester()
	if err != nil || login == "" {
		return "", err
	}
	return c.permission(ctx, r, login)
}

// refusal is Decide's answer as an error (nil when allowed).
func refusal(f Facts) error {
	if r := Decide(f); r != nil {
		return r
	}
	return nil
}

func (c *Checker) visibility(ctx context.Context, r Repo) (Visibility, error) {
	if r.Visibility != Unknown {
		return r.Visibility, nil
	}
	if v := c.Visibilities.Get(r.Owner, r.Name); v != Unknown {
		return v, nil
	}
	if r.API == nil {
		return Unknown, nil
	}
	info, err := r.API.GetRepository(ctx, r.Owner, r.Name)
	if err != nil {
		return Unknown, fmt.Errorf("visibility of %s: %w", r.FullName(), err)
	}
	c.Visibilities.Remember(info)
	return VisibilityOf(info), nil
}

func (c *Checker) permission(ctx context.Context, r Repo, login string) (string, error) {
	if r.API == nil {
		return LevelNone, nil
	}
	level, _, err := c.Permissions.Lookup(ctx, r.API, r.Owner, r.Name, login)
	if err != nil {
		return "", fmt.Errorf("permission of %s on %s: %w", login, r.FullName(), err)
	}
	return level, nil
}

// Visibility is r's visibility: as given, kept, or asked (one call, kept
// a minute).
func (c *Checker) Visibility(ctx context.Context, r Repo) (Visibility, error) {
	return c.visibility(ctx, r)
}

// Remember keeps the visibility of repositories porchbot read anyway.
func (c *Checker) Remember(repos ...hub.Repository) {
	if c == nil {
		return
	}
	for _, r := range repos {
		c.Visibilities.Remember(r)
	}
}
