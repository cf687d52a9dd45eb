// Package core is what every lifecycle step stands on: a Session (one
// event's view of a repository: its installation client, its git cache,
// the configuration in force and the last good one), the bot's commits
// (Porch's trailer) pushed under a lease (CommitUnderLease: refetch and
// retry when the branch moved), landings (which packages a commit of the
// deployment branch changed), the repository's revision tags as porchbot
// reads and judges them, the package files of a commit with positions in
// them, check-run writing (annotations in batches, GitHub's caps), the
// records' key and the errors a request can cause (RequestError).
package core
