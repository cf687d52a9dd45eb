// Package update is porchbot's 3-way merge of kpt packages, the engine of
// `kpt pkg update`: given the upstream package at the revision the local copy
// was fetched from (origin), the upstream at the new revision (updated) and
// the local copy with its own edits (local), it returns the updated local
// package and every field where both sides disagreed.
//
// It is pure: files in (map path → bytes, paths relative to the package
// root, "/"-separated, subpackages included), files and conflicts out. It
// never touches git, GitHub or the file system; the CLI (`porchbot update`,
// `porchbot merge3`) and the update pull requests of bot/lifecycle fetch
// the three trees and write the result.
package update
