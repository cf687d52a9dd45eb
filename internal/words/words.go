// Package words writes the few words porchbot's messages share, in
// comments, check runs, pull request bodies, logs and errors alike: a
// count with its noun ("1 file", "3 files") and a commit as GitHub names
// it in prose (its first 7 hex digits). Quoting text that users control
// is internal/mdquote's.
//
// The package imports nothing of the project.
package words

import "fmt"

// Count is n with its noun: "1 <one>", else "<n> <many>".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Plural is the word for n things: one for 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// ShortSHA is a commit id's first 7 digits, as GitHub shows them (the
// whole of a shorter one).
func ShortSHA(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// CommitOrUnknown is ShortSHA, or "an unknown commit" for none.
func CommitOrUnknown(sha string) string {
	if sha == "" {
		return "an unknown commit"
	}
	return ShortSHA(sha)
}
