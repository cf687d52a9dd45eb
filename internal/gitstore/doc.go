// Package gitstore is porchbot's git layer: it keeps one bare repository per
// remote repository on local disk (a cache), fetches into it, reads package
// trees from it, writes commits straight into its object database and pushes
// them back, all with go-git over smart HTTP(S) (github.com, GitHub
// Enterprise Server, or the project's local forge).
//
// # Layout
//
// A remote https://HOST/OWNER/REPO(.git) is cached in the bare repository
// Dir/HOST/OWNER/REPO.git (a port in HOST is written HOST_PORT, path prefixes
// in front of OWNER are kept as directories). Branches are mirrored into
// refs/remotes/origin/*, tags into refs/tags/* (only when asked for with
// TagsRefSpec); refspecs are applied as forced and pruned, so the cache
// mirrors the remote. History is always fetched in full. The directory is
// owned by one Store: two Stores (or processes) must not share it. Commits
// are written as loose objects straight into the cache; nothing is ever
// checked out.
//
// With Options.AllowLocalAndSSH (the `porchbot update` CLI, never the bot,
// whose remotes come from repository content), file:///PATH URLs, absolute
// local paths and SSH remotes (ssh://, scp-like USER@HOST:PATH; the SSH
// agent authenticates) are accepted too, cached under Dir/_local and
// Dir/_ssh by a digest of the URL.
//
// # Observability
//
// Fetches and pushes are counted in metrics.GitOperations by operation
// (fetch, push) and outcome (ok, up_to_date, lease_broken, error), and in
// Store.Stats, which counts every operation that reached the remote. Log
// entries carry the fields repository and ref.
//
// # Concurrency
//
// A Store is safe for use by many goroutines. Every operation on a Cache
// holds that repository's lock for its whole duration (network included), so
// operations on one repository are serialised while different repositories
// proceed in parallel. Waiting for the lock honours the context.
//
// # Authentication
//
// Options.Auth is called before every fetch and push with "OWNER/REPO", so an
// installation token can be refreshed between operations; TokenAuth builds
// the HTTP basic credentials GitHub expects (user x-access-token). URLs must
// not carry credentials.
//
// # Push leases (compare-and-swap)
//
// Every push carries a lease: PushRequest.Old is the value the remote ref must
// have for the update to happen (ZeroHash: the ref must not exist). Push does
// not go through go-git's Remote.Push; it speaks the receive-pack protocol
// through go-git's transport and sends the update command
// "<Old> <New> <Ref>" itself, with Old set to the lease. The protection is:
//
//  1. Client-side check: the ref advertisement of the same push session is
//     compared with the lease. A mismatch returns ErrLeaseBroken before any
//     object is uploaded. (go-git's PushOptions.RequireRemoteRefs does the
//     same comparison but cannot express "must not exist";
//     PushOptions.ForceWithLease compares with the local remote-tracking ref
//     unless a hash is given, needs that tracking ref to exist, and is
//     ignored entirely when the source is a commit hash. Neither is used.)
//  2. Server-side check, atomic: git receive-pack applies each command as a
//     ref transaction whose expected old value is the command's Old, checked
//     under the ref lock. On smart HTTP the advertisement (GET info/refs) and
//     the update (POST git-receive-pack) are separate requests; if the ref
//     moves between them, the server refuses the command ("failed to update
//     ref"; "cannot lock ref ...: is at X but expected Y" or "reference
//     already exists" on its stderr). Because Old is exactly the lease, the
//     window of the client-side check is closed: the ref is updated only if
//     it is at Old at the instant it is written. This is the server behaviour
//     git push --force-with-lease and all concurrent pushes rely on; the tests
//     prove it against git http-backend by moving or creating the ref inside
//     the push request, after the advertisement.
//  3. Classification: when the server refuses the command, the ref is read
//     again (a fresh advertisement). If it is no longer at Old the error is a
//     *LeaseError (errors.Is(err, ErrLeaseBroken)); otherwise it is
//     ErrRejected with the server's reason and messages (protected branch,
//     hook, receive.denyNonFastForwards, or a transient failure such as lock
//     contention, which may be retried as is). If the ref cannot be read
//     again, a "failed to update ref"/"cannot lock ref"/"already exists"
//     reason is taken as a broken lease.
//
// Consequences and limits:
//   - Updates are "forced" in git's sense: a non-fast-forward update (a
//     rewrite) succeeds when, and only when, the lease matches. A branch moved
//     by someone else is never overwritten, but a caller that passes the
//     remote's current value as Old without having looked at it can rewrite
//     history; pass the head you built on.
//   - The server may refuse non-fast-forward updates anyway
//     (receive.denyNonFastForwards, GitHub branch protection): ErrRejected.
//   - If the remote already has New at Ref (for example a retry after a lost
//     response) Push returns nil: the desired state holds. Likewise deleting
//     a ref that no longer exists returns nil.
//   - A server that does not send report-status cannot be verified; go-git
//     negotiates it and GitHub and git http-backend always send it.
//   - git receive-pack skips the old-value check of a deletion whose Old
//     object it does not have ("allowing deletion of corrupt ref"). The
//     client-side check (1) has just seen the ref at Old, so the object
//     exists; only its disappearance from the server between the two
//     requests would reopen the window.
//   - ErrRejected can be transient (lock contention on the server); the lease
//     still holds then, and the same request may be retried.
package gitstore
