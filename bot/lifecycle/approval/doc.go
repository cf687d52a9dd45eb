// Package approval decides whether a proposal may merge. It holds what a
// proposal is (ProposalAPI, ParseProposal, the bot's markers), what it
// changes and the content digests approvals are given on, the pure policy
// (Evaluate, one predicate per requirement in approval_requirements.go) over
// facts gathered once (approval_facts.go), approvers and their team
// memberships, requester records, readiness gates, and the
// porchbot/approval check that reports the verdict.
package approval
