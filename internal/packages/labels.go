package packages

// Labels the bot puts on pull requests.
const (
	// LabelProposed marks a proposal: an open pull request from a draft
	// branch (Porch's Proposed lifecycle).
	LabelProposed = "porch/proposed"
	// LabelDeletionProposed marks a pull request that removes a package
	// (Porch's DeletionProposed).
	LabelDeletionProposed = "porch/deletion-proposed"
	// LabelUpdate marks a downstream update pull request (the default of
	// updates.labels in the repository configuration).
	LabelUpdate = "porch/update"
)
