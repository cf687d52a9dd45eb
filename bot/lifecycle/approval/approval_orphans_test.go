package approval

import (
	"context"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
)

// Pure tests of the deletion guard: a proposal deleting a package that
// downstream packages track needs a counted approval that acknowledges it.

var upfOrphaned = []OrphanedPackage{{Package: "network/upf", Downstreams: 3}}

func TestEvaluateDeletionWithDownstreams(t *testing.T) {
	one := config.Approvals{Required: 1}
	none := config.Approvals{Required: 0}
	ack := func(v Vote) Vote { v.Source, v.OrphanAck = VoteFromCommand, true; return v }
	const problem = "deletes `network/upf`, which 3 downstream packages use: `/porch approve --orphan-downstreams` to publish the deletion anyway"
	cases := []struct {
		name      string
		policy    config.Approvals
		orphans   []OrphanedPackage
		votes     []Vote
		satisfied bool
		problem   bool
	}{
		{"no downstreams: as before", one, nil, []Vote{apApprove("bob", 1)}, true, false},
		{"an approval without the acknowledgement", one, upfOrphaned, []Vote{apApprove("bob", 1)}, false, true},
		{"an approver's acknowledgement", one, upfOrphaned, []Vote{ack(apApprove("bob", 1))}, true, false},
		{"the author's own acknowledgement does not count", one, upfOrphaned, []Vote{ack(apApprove("alice", 1))}, false, true},
		{"a non-approver's acknowledgement does not count", one, upfOrphaned,
			[]Vote{apApprove("bob", 1), func() Vote { v := ack(apApprove("carol", 2)); v.Allowed = false; return v }()}, false, true},
		{"a stale acknowledgement does not count", one, upfOrphaned,
			[]Vote{apApprove("bob", 1), func() Vote { v := ack(apApprove("carol", 2)); v.Commit, v.Digest = apShaOld, apDigestOld; return v }()}, false, true},
		{"superseded by the same approver's later review", one, upfOrphaned, []Vote{ack(apApprove("bob", 1)), apApprove("bob", 2)}, false, true},
		{"one acknowledgement among two approvals", config.Approvals{Required: 2}, upfOrphaned,
			[]Vote{apApprove("bob", 1), ack(apApprove("carol", 2))}, true, false},
		{"no approval required: still acknowledged", none, upfOrphaned, nil, false, true},
		{"no approval required, acknowledged", none, upfOrphaned, []Vote{ack(apApprove("bob", 1))}, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Evaluate(c.policy, Inputs{Author: "alice", Head: apShaHead, HeadDigest: apDigestHead, Votes: c.votes, Orphans: c.orphans})
			if res.Satisfied != c.satisfied {
				t.Errorf("satisfied %v, want %v: %s", res.Satisfied, c.satisfied, res.Summary)
			}
			if (res.OrphanProblem != "") != c.problem {
				t.Errorf("orphan problem %q", res.OrphanProblem)
			}
			if c.problem && (res.OrphanProblem != problem || !strings.Contains(res.Summary, problem) ||
				!strings.Contains(res.Markdown(c.policy), problem)) {
				t.Errorf("the check does not say why:\nproblem %s\nsummary %s\n%s", res.OrphanProblem, res.Summary, res.Markdown(c.policy))
			}
		})
	}
	res := Evaluate(one, Inputs{Author: "alice", Head: apShaHead, HeadDigest: apDigestHead, Votes: []Vote{apApprove("bob", 1)}, Orphans: upfOrphaned})
	if !strings.HasPrefix(res.Summary, "Approvals complete: @bob (1 of 1 required); deletes") {
		t.Errorf("summary %q", res.Summary)
	}
	res = Evaluate(one, Inputs{Author: "alice", Head: apShaHead, HeadDigest: apDigestHead, Votes: []Vote{ack(apApprove("bob", 1))}, Orphans: upfOrphaned})
	if md := res.Markdown(one); !strings.Contains(md, orphanAckNote) {
		t.Errorf("the counted acknowledgement is not shown:\n%s", md)
	}
}

func TestOrphansSentence(t *testing.T) {
	got := OrphansSentence([]OrphanedPackage{{Package: "a", Downstreams: 1}, {Package: "b`x", Downstreams: 2, Partial: true}})
	want := "deletes `a`, which 1 downstream package uses; ``b`x``, which 2 downstream packages use (or more: porchbot has not seen every repository yet)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestVerdictTakesTheOrphansFromTheFacts: Verdict judges the facts'
// orphaned packages.
func TestVerdictTakesTheOrphansFromTheFacts(t *testing.T) {
	f := StaticProposalFacts{RequesterLogin: "alice", HeadCommit: apShaHead, OrphanList: upfOrphaned,
		VoteList: []Vote{apApprove("bob", 1)}, Approvers: map[string]bool{"bob": true}}
	res, in, err := Verdict(context.Background(), config.Approvals{Required: 1}, f)
	if err != nil || res.Satisfied || len(in.Orphans) != 1 || res.OrphanProblem == "" {
		t.Fatalf("res %+v in %+v err %v", res, in, err)
	}
}

// TestOrphanAcknowledgementIsSigned: --orphan-downstreams is part of the
// signed record: a record edited to acknowledge does not verify, and one
// that acknowledged gives a vote that does.
func TestOrphanAcknowledgementIsSigned(t *testing.T) {
	bot := hub.User{Login: "porchbot[bot]", Type: "Bot"}
	api := ProposalAPI{RecordKey: []byte("k")}
	rec := func(orphans bool) approveMarker {
		m := approveMarker{User: "bob", Head: apShaHead, Digest: "d", Orphans: orphans}
		m.Sig = approveSignature(api.RecordKey, "acme/catalog", 7, m)
		return m
	}
	forged := rec(false)
	forged.Orphans = true
	comments := []hub.Comment{
		{User: bot, Body: FormatBotMarker(approveMarkerKind, rec(true)), CreatedAt: apT0, UpdatedAt: apT0},
		{User: bot, Body: FormatBotMarker(approveMarkerKind, forged), CreatedAt: apT0, UpdatedAt: apT0},
		{User: bot, Body: FormatBotMarker(approveMarkerKind, rec(false)), CreatedAt: apT0, UpdatedAt: apT0},
	}
	votes, _ := commandVotes(api, "acme/catalog", 7, comments, apQuietLog())
	if len(votes) != 2 || !votes[0].OrphanAck || votes[1].OrphanAck {
		t.Fatalf("votes %+v", votes)
	}
	if approveSignature(api.RecordKey, "acme/catalog", 7, approveMarker{User: "bob", Head: apShaHead, Digest: "d"}) != rec(false).Sig {
		t.Fatal("a record without the flag must keep the signature it had")
	}
}
