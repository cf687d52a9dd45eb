package flow

import (
	"strings"

	"github.com/porchbot/porchbot/internal/hub"
)

// Visibility is who can read a repository, by how many people can: the
// zero value is unknown.
type Visibility int

// Visibilities, from the fewest readers to the most.
const (
	Unknown Visibility = iota
	Private
	Internal
	Public
)

func (v Visibility) String() string {
	switch v {
	case Private:
		return "private"
	case Internal:
		return "internal"
	case Public:
		return "public"
	}
	return "of unknown visibility"
}

// VisibilityOf is a repository's visibility as the repository endpoint
// (or an installation's repository list, or an event) gives it:
// hub.Repository.Visibility, which internal/github fills from the
// visibility field, else the private flag ("" when neither is said).
func VisibilityOf(r hub.Repository) Visibility {
	switch strings.ToLower(r.Visibility) {
	case "public":
		return Public
	case "internal":
		return Internal
	case "private":
		return Private
	}
	return Unknown
}

// Widens reports whether content of a repository of visibility from,
// put into one of visibility to, reaches more readers. Nothing is wider
// than public; otherwise Unknown widens (and is widened) always: the rule
// never guesses.
func Widens(from, to Visibility) bool {
	switch {
	case from == Public:
		return false
	case from == Unknown || to == Unknown:
		return true
	}
	return to > from
}

// Nameable reports whether what porchbot writes in a thread of a
// repository of visibility thread (a reply, a check run, a pull request
// body, the dashboard) may name another repository of visibility named:
// only when every reader of the thread can read it (a public one; an
// internal one in an internal thread, both being the enterprise's).
func Nameable(thread, named Visibility) bool {
	return named == Public || named == Internal && thread == Internal
}
