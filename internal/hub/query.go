package hub

import "time"

// Page asks for one page of a listing: Number 0 is the first page,
// PerPage 0 GitHub's default (30).
type Page struct {
	Number  int
	PerPage int
}

// Next is the page after a listing's: zero when it was the last. It is
// what a listing call returns besides its items.
type Next struct {
	// Page is the next page's number (0: none).
	Page int
	// After is the next page's cursor, for listings paged by cursor
	// (activities).
	After string
}

// PullQuery filters a repository's pull requests.
type PullQuery struct {
	// State is "open" (GitHub's default), "closed" or "all".
	State string
	// Head is "owner:branch".
	Head string
	Base string
	// Sort is "created" (GitHub's default), "updated", "popularity" or
	// "long-running"; Direction "asc" or "desc".
	Sort, Direction string
	Page
}

// NewPull opens a pull request.
type NewPull struct {
	Title, Head, Base, Body string
	Draft                   bool
}

// PullEdit edits a pull request: empty fields are left as they are.
type PullEdit struct {
	Title, Body, State, Base string
}

// Merge merges a pull request: SHA, when set, must be its head;
// Method "merge", "squash" or "rebase" ("" for the repository's).
type Merge struct {
	Message, SHA, Method string
}

// CommentQuery filters an issue's comments.
type CommentQuery struct {
	// Since keeps the comments updated at or after it (zero: all).
	Since time.Time
	// Sort "created" or "updated", Direction "asc" or "desc".
	Sort, Direction string
	Page
}

// Reaction is the outcome of ReactToComment.
type Reaction struct {
	// Made: this call made the reaction (201), not an earlier one (200).
	Made bool
	// CreatedAt is when the reaction was made (zero when not said).
	CreatedAt time.Time
}

// Activity is a branch's move (GitHub's repository activities): from
// Before to After at Timestamp (to the second) by Actor.
type Activity struct {
	Before, After string
	Ref           string
	Timestamp     time.Time
	Type          string
	Actor         string
}

// ActivityQuery filters a repository's activities: Ref a branch name or
// refs/heads/<name>; After a cursor from a previous Next.After.
type ActivityQuery struct {
	Ref     string
	PerPage int
	After   string
}
