package commands

import "github.com/porchbot/porchbot/internal/mdquote"

// A command runs only with the words its author wrote. A webhook's
// "created" payload carries them (an "edited" one runs nothing). The
// resync (AnswerMissed) reads a comment as it is now, and GitHub dates
// edits to the second: an edit made in the second the comment was
// written looks like no edit. Anyone who can change another's comment
// has write access, so a command that needs no more than write access
// grants such an editor nothing they lack, and it runs. A verb that acts
// on its author's own standing beyond that (Verb.AuthorBound: an
// approver's approve and publish, the requester that propose and delete
// record, the other repositories clone and upgrade read as the author) is
// not run from a comment the resync found: the reply asks for a new
// comment (or, for approve, a review).

// foundRefusal refuses an AuthorBound verb of a comment the resync found.
func (cr *commentRun) foundRefusal(v Verb) (result, bool) {
	if !cr.ev.found || !v.AuthorBound {
		return result{}, false
	}
	why := "porchbot found this comment late (its webhook never arrived) and reads it as it is now: GitHub dates edits " +
		"to the second, so porchbot cannot rule out that someone else changed its words as it was written, and " +
		mdquote.Code(Prefix+" "+v.Name) + " acts on its author's own standing. "
	if v.Name == "approve" {
		return result{status: statusRefused, text: why + "This approval does not count: approve with a review, " +
			"or comment " + mdquote.Code(Prefix+" approve") + " again."}, true
	}
	return result{status: statusRefused, text: why + "Nothing was run: comment it again."}, true
}
