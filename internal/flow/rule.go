package flow

import (
	"context"
	"fmt"
	"strings"
)

// Repo is one side of a flow.
type Repo struct {
	Owner, Name string
	// Visibility, when already known (Unknown: the Checker asks).
	Visibility Visibility
	// API is a client of an installation that can see the repository
	// (its own installation's): the Checker's lookups about it go there.
	API API
}

// FullName is owner/name.
func (r Repo) FullName() string { return r.Owner + "/" + r.Name }

// Request is one flow of content from Source into Target.
type Request struct {
	Source, Target Repo
	// Requester is the GitHub login of whoever caused the flow ("" when
	// it could not be told: refused). Cause says how, for messages: "asked"
	// for a command, or what configuration commit asked for it.
	Requester string
	// Commit, for configuration-driven work, is the configuration commit
	// whose author is the requester: when Requester is "", the Checker
	// resolves it (CommitRepo is the repository holding it).
	Commit     string
	CommitRepo Repo
	// SourceVouched, TargetVouched: the requester's access to that side
	// is already proven, by the configuration commit having landed on that
	// repository's deployment branch (which takes write access, or a
	// writer's merge).
	SourceVouched, TargetVouched bool
	// AllowWider: the source's configuration lets its content go where
	// more people can read it (flows.allowWiderReaders). Allow, when set,
	// is asked instead, and only when the flow would widen and the
	// requester can read the source (nothing of a source is read for
	// someone who cannot read it, its configuration included).
	AllowWider bool
	Allow      func(ctx context.Context) (bool, error)
}

// Facts are what the rule decides on.
type Facts struct {
	Source, Target string
	// SourceVisibility and TargetVisibility (Unknown widens).
	SourceVisibility, TargetVisibility Visibility
	AllowWider                         bool
	Requester                          string
	// CanReadSource and CanWriteTarget: the requester's access.
	CanReadSource, CanWriteTarget bool
}

// Refusal is a flow the rule refuses, with why (written for the
// requester: it names the two repositories, which the requester named).
type Refusal struct {
	Source, Target, Requester string
	Reason                    string
}

func (r *Refusal) Error() string { return r.Reason }

// Decide is the rule: nil when content may go from the source into the
// target, else why not, in this order: whether the requester can read the
// source, whether the target has more readers than the source, and
// whether the requester can write the target (a requester porchbot could
// not tell is refused only when their access had to be looked up). A repository into itself is always
// allowed.
func Decide(f Facts) *Refusal {
	if strings.EqualFold(f.Source, f.Target) {
		return nil
	}
	refuse := func(format string, a ...any) *Refusal {
		return &Refusal{Source: f.Source, Target: f.Target, Requester: f.Requester, Reason: fmt.Sprintf(format, a...)}
	}
	unknown := refuse("porchbot cannot tell who asked for content of %s to go into %s: it carries content only for someone "+
		"who can read the one and write the other", f.Source, f.Target)
	switch {
	case !f.CanReadSource && f.Requester == "":
		return unknown
	case !f.CanReadSource:
		return refuse("@%s cannot read %s: porchbot carries content only from repositories the requester can read", f.Requester, f.Source)
	case Widens(f.SourceVisibility, f.TargetVisibility) && !f.AllowWider:
		return refuse("%s is %s and %s is %s: porchbot does not carry a repository's content where more people can read it "+
			"unless the configuration of %s allows it (flows.allowWiderReaders)",
			f.Source, f.SourceVisibility, f.Target, f.TargetVisibility, f.Source)
	case !f.CanWriteTarget && f.Requester == "":
		return unknown
	case !f.CanWriteTarget:
		return refuse("@%s cannot write %s: porchbot carries content only into repositories the requester can write", f.Requester, f.Target)
	}
	return nil
}
