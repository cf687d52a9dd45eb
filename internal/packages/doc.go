// Package packages holds the naming rules of porchbot's Porch-compatible
// layout, as pure functions over paths and ref names (no GitHub or git
// calls):
//
//   - a package is a directory holding a Kptfile, named by its path from the
//     packages root (Discover, ValidateName);
//   - published revision N of package P is the tag P/vN (ParseTag, TagName,
//     Revisions, Latest, Next, Gaps);
//   - a draft of P in workspace W is the branch drafts/P/W (ParseDraftBranch,
//     DraftBranch); update pull requests use porch/update/P (UpdateBranch);
//   - every commit the bot makes carries Porch's "kpt:" trailer (Trailer).
package packages
