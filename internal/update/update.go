package update

import (
	"errors"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// Files is a package tree: path relative to the package root ("/"-separated,
// no leading slash) → file bytes. Subpackages are included under their
// directories.
type Files map[string][]byte

// Conflict sides: updates.onConflict values.
const (
	SideUpstream = "upstream" // take the new upstream's value (kpt's behaviour, the default)
	SideLocal    = "local"    // keep the local value
	SideFail     = "fail"     // refuse the update when any conflict exists
)

// Options of a merge.
type Options struct {
	// Strategy is one of kptfile.UpdateStrategies; "" means the local
	// Kptfile's upstream.updateStrategy, or resource-merge.
	Strategy string
	// OnConflict is SideUpstream (default when ""), SideLocal or SideFail.
	OnConflict string
	// Lock, when set, is written as the merged Kptfile's upstreamLock, and
	// its Ref as upstream.git.ref (the revision the package now tracks).
	Lock *kptfile.GitLock
	// Ref, when set, is written as upstream.git.ref instead of Lock.Ref:
	// kpt records the ref as the user gave it ("v2") and the lock with the
	// tag it resolved to ("app/v2").
	Ref string
}

// Conflict is one field both the local package and the new upstream changed
// from origin, to different values.
type Conflict struct {
	File     string `json:"file"`     // path in the package
	Resource string `json:"resource"` // group/version Kind namespace/name, as kpt names it
	Field    string `json:"field"`    // field path, e.g. spec.replicas or spec.template.spec.containers[name=app].image
	Local    string `json:"local"`    // the local value (YAML, one line; "" when the field was removed)
	Upstream string `json:"upstream"` // the new upstream value
	Taken    string `json:"taken"`    // SideUpstream or SideLocal
}

// Result of a merge.
type Result struct {
	Files     Files
	Conflicts []Conflict
}

// ErrConflicts is wrapped by Merge's error when OnConflict is SideFail and
// the merge found conflicts; the Result then still lists them.
var ErrConflicts = errors.New("conflicting changes")

// ErrLocalChanges is wrapped by Merge's error when the fast-forward strategy
// finds local changes.
var ErrLocalChanges = errors.New("local package has changes")
