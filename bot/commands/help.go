package commands

import (
	"strings"

	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
)

// Access is who may run a verb.
type Access int

const (
	// Anyone may run it (help).
	Anyone Access = iota
	// WriteAccess: users with write, maintain or admin permission on the
	// repository.
	WriteAccess
	// ApprovalPolicy: anyone may issue it; the repository's approval policy
	// decides whether it counts (approve).
	ApprovalPolicy
)

func (a Access) String() string {
	switch a {
	case WriteAccess:
		return "write access"
	case ApprovalPolicy:
		return "anyone; counts if the approval policy allows"
	}
	return "anyone"
}

// Place is where a verb can run.
type Place int

const (
	// Anywhere: issue or pull request comments.
	Anywhere Place = iota
	// InPullRequest: pull request comments only.
	InPullRequest
)

// ArgKind is what a positional argument is, for the parser's checks.
type ArgKind int

const (
	// ArgAny is not checked.
	ArgAny ArgKind = iota
	// ArgPackage is a package name (packages.ValidateName).
	ArgPackage
	// ArgRevision is v<N>.
	ArgRevision
	// ArgDraft is <package>/<workspace> (or drafts/<package>/<workspace>).
	ArgDraft
	// ArgVerb is a verb name.
	ArgVerb
	// ArgRolloutAction is what /porch rollout does (RolloutActions).
	ArgRolloutAction
)

// Flags of the verbs.
const (
	FlagWorkspace   = "workspace"
	FlagDescription = "description"
	FlagFrom        = "from"
	FlagTo          = "to"
	FlagStrategy    = "strategy"
	FlagWave        = "wave"
	// FlagOrphanDownstreams is approve's switch acknowledging the
	// downstream packages a deletion leaves without their upstream.
	FlagOrphanDownstreams = "orphan-downstreams"
)

// RolloutActions are /porch rollout's first argument: status for anyone
// with write access; the others for approvers.
var RolloutActions = []string{"status", "pause", "resume", "skip-wave"}

// Verb describes one /porch verb: the help table's row and the parser's
// rules for its arguments.
type Verb struct {
	Name string
	// Syntax is the arguments as help shows them.
	Syntax  string
	Summary string
	Access  Access
	Where   Place
	// MinArgs and MaxArgs bound the positional arguments; Args gives
	// what each one is, in order (checked by the parser).
	MinArgs, MaxArgs int
	Args             []ArgKind
	// Flags are the --flags the verb accepts, each with a value;
	// Switches those it accepts without one.
	Flags    []string
	Switches []string
	// Text makes the rest of the line one free-text argument, not
	// tokenised (reject's reason: "isn't ready" must not be a quoting
	// error).
	Text bool
	// AuthorBound verbs act on their author's own standing beyond write
	// access (approver, requester, reader of another repository): a
	// comment the resync found does not run them (found.go).
	AuthorBound bool
}

// Usage is "/porch <name> <syntax>".
func (v Verb) Usage() string {
	if v.Syntax == "" {
		return "/porch " + v.Name
	}
	return "/porch " + v.Name + " " + v.Syntax
}

// Verbs are the commands of SPEC §4, in the order help lists them.
var Verbs = []Verb{
	{Name: "help", Syntax: "[<verb>]", Summary: "this command table", Access: Anyone, MaxArgs: 1, Args: []ArgKind{ArgVerb}},
	{Name: "list", Summary: "packages with their latest revision, open drafts, proposals, pending updates", Access: WriteAccess},
	{Name: "dependents", Syntax: "<package>", Summary: "the downstream packages known to track a package of this repository: where, the revision each is at, whether it is behind (repositories this repository's readers cannot see are counted, not named)",
		Access: WriteAccess, MinArgs: 1, MaxArgs: 1, Args: []ArgKind{ArgPackage}},
	{Name: "init", Syntax: "<package> [--workspace W] [--description D]", Summary: "new empty package draft (what `kpt pkg init` writes)",
		Access: WriteAccess, MinArgs: 1, MaxArgs: 1, Args: []ArgKind{ArgPackage}, Flags: []string{FlagWorkspace, FlagDescription}},
	{Name: "clone", Syntax: "<owner/repo/package@vN | https://host/owner/repo.git/dir@ref> <package> [--workspace W]",
		Summary: "new package draft cloned from a published revision or a git URL, upstream and upstream lock set (`kpt pkg get`)",
		Access:  WriteAccess, MinArgs: 2, MaxArgs: 2, Args: []ArgKind{ArgAny, ArgPackage}, Flags: []string{FlagWorkspace}, AuthorBound: true},
	{Name: "edit", Syntax: "<package> [--from vN] [--workspace W]", Summary: "new draft copied from the latest (or given) published revision",
		Access: WriteAccess, MinArgs: 1, MaxArgs: 1, Args: []ArgKind{ArgPackage}, Flags: []string{FlagFrom, FlagWorkspace}},
	{Name: "propose", Syntax: "[<package>/<workspace>]", Summary: "open the pull request for a draft (in a draft's pull request: no argument)",
		Access: WriteAccess, MaxArgs: 1, Args: []ArgKind{ArgDraft}, AuthorBound: true},
	{Name: "approve", Syntax: "[--orphan-downstreams]", Summary: "counts as an approval from the commenter; `--orphan-downstreams` also acknowledges that a deletion leaves downstream packages without their upstream",
		Access: ApprovalPolicy, Where: InPullRequest, Switches: []string{FlagOrphanDownstreams}, AuthorBound: true},
	{Name: "reject", Syntax: "[reason]", Summary: "close the proposal; the draft branch stays", Access: WriteAccess, Where: InPullRequest, Text: true},
	{Name: "render", Summary: "render the draft again now (a fork's pull request: checked, not pushed)", Access: WriteAccess, Where: InPullRequest},
	{Name: "upgrade", Syntax: "<package> [--to vN] [--strategy " + strings.Join(kptfile.UpdateStrategies, "|") + "]",
		Summary: "update pull request (`porch/update/<package>`) to the latest (or given) upstream revision, now", Access: WriteAccess,
		MinArgs: 1, MaxArgs: 1, Args: []ArgKind{ArgPackage}, Flags: []string{FlagTo, FlagStrategy}, AuthorBound: true},
	{Name: "rollback", Syntax: "<package> v<N> [--workspace W]", Summary: "new draft whose contents are revision N",
		Access: WriteAccess, MinArgs: 2, MaxArgs: 2, Args: []ArgKind{ArgPackage, ArgRevision}, Flags: []string{FlagWorkspace}},
	{Name: "delete", Syntax: "<package>", Summary: "deletion proposal pull request", Access: WriteAccess, MinArgs: 1, MaxArgs: 1, Args: []ArgKind{ArgPackage}, AuthorBound: true},
	{Name: "variants", Summary: "in the repository of an upstream package: each variant's targets, their downstream package, the revision it tracks and its state",
		Access: WriteAccess},
	{Name: "rollout", Syntax: "status|pause|resume|skip-wave <package> [--wave W]",
		Summary: "in the repository of an upstream package rolled out in waves (docs/rollouts.md): its waves, where it stands and why; an approver's pause, resume (acknowledging the failures so far) or skip-wave (the first wave that has not met its rule, or --wave)",
		Access:  WriteAccess, MinArgs: 2, MaxArgs: 2, Args: []ArgKind{ArgRolloutAction, ArgPackage}, Flags: []string{FlagWave}, AuthorBound: true},
	{Name: "publish", Syntax: "[<package>]", Summary: "tag a landed package now: with `publishOn: never`, or a landing not published for want of approval (an approver's; counts as their approval); an approver's also adopts the package's tags porchbot did not make (signs them on the same commits)",
		Access: WriteAccess, MaxArgs: 1, Args: []ArgKind{ArgPackage}, AuthorBound: true},
}

// LookupVerb finds a verb by name (case-insensitive).
func LookupVerb(name string) (Verb, bool) {
	name = strings.ToLower(name)
	for _, v := range Verbs {
		if v.Name == name {
			return v, true
		}
	}
	return Verb{}, false
}

// VerbNames lists the verbs' names in table order.
func VerbNames() []string {
	out := make([]string, len(Verbs))
	for i, v := range Verbs {
		out[i] = v.Name
	}
	return out
}

// HelpMarkdown renders the command table (all verbs, or the named ones) as
// a GitHub markdown table.
func HelpMarkdown(names ...string) string {
	var b strings.Builder
	b.WriteString("| command | effect | who may run it |\n|---|---|---|\n")
	for _, v := range Verbs {
		if len(names) > 0 && !containsFold(names, v.Name) {
			continue
		}
		summary := v.Summary
		if v.Where == InPullRequest {
			summary += " (in a pull request)"
		}
		b.WriteString("| " + mdquote.Cell(mdquote.Code(v.Usage())) + " | " + mdquote.Cell(summary) + " | " + mdquote.Cell(v.Access.String()) + " |\n")
	}
	return b.String()
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
