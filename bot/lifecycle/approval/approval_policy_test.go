package approval

import (
	"context"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/hub/hubtest"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// Pure tests of the approval policy and its helpers (no forge).

const (
	apShaHead    = "1111111111111111111111111111111111111111"
	apShaOld     = "2222222222222222222222222222222222222222"
	apShaOld2    = "3333333333333333333333333333333333333333"
	apDigestHead = "d-head"
	apDigestOld  = "d-old"
)

var apT0 = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

func apAt(min int) time.Time { return apT0.Add(time.Duration(min) * time.Minute) }

func apApprove(user string, min int) Vote {
	return Vote{User: user, State: VoteApproved, Source: VoteFromReview, Commit: apShaHead, Digest: apDigestHead, At: apAt(min), Allowed: true}
}

func TestEvaluate(t *testing.T) {
	one := config.Approvals{Required: 1}
	two := config.Approvals{Required: 2}
	self := config.Approvals{Required: 1, AllowSelfApproval: true}
	with := func(v Vote, f func(*Vote)) Vote { f(&v); return v }
	gate := func(typ, status string) GateStatus { return GateStatus{ConditionType: typ, Status: status} }

	type want struct {
		satisfied bool
		counted   string // users, comma-separated
		ignored   string // user:reason, comma-separated
		gates     string
		summary   string
	}
	cases := []struct {
		name   string
		policy config.Approvals
		author string
		votes  []Vote
		gates  []GateStatus
		want   want
	}{
		{"one approval at head", one, "alice", []Vote{apApprove("bob", 1)},
			nil, want{true, "bob", "", "", "Approved by @bob (1 of 1 required)."}},
		{"no approval", one, "alice", nil,
			nil, want{false, "", "", "", "Waiting for 1 approval (0 of 1)."}},
		{"nothing required", config.Approvals{}, "alice", nil,
			nil, want{true, "", "", "", "No approval required."}},
		{"two required, one given", two, "alice", []Vote{apApprove("bob", 1)},
			nil, want{false, "bob", "", "", "Waiting for 1 more approval (1 of 2: @bob)."}},
		{"distinct approvers: twice the same user counts once", two, "alice",
			[]Vote{apApprove("bob", 1), with(apApprove("Bob", 2), func(v *Vote) { v.Source = VoteFromCommand })},
			nil, want{false, "Bob", "bob:superseded", "", ""}},
		{"self-approval refused", one, "alice", []Vote{apApprove("alice", 1)},
			nil, want{false, "", "alice:self-approval", "", ""}},
		{"self-approval refused whatever the case", one, "Alice", []Vote{apApprove("alice", 1)},
			nil, want{false, "", "alice:self-approval", "", ""}},
		{"self-approval allowed", self, "alice", []Vote{apApprove("alice", 1)},
			nil, want{true, "alice", "", "", ""}},
		{"not an approver", one, "alice", []Vote{with(apApprove("carol", 1), func(v *Vote) { v.Allowed = false; v.Note = "@carol has read access" })},
			nil, want{false, "", "carol:not an approver", "", ""}},
		{"older commit, same package content: carried", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.Commit, v.Digest = apShaOld, apDigestHead })},
			nil, want{true, "bob", "", "", ""}},
		{"older commit, changed package content: stale", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.Commit, v.Digest = apShaOld, apDigestOld })},
			nil, want{false, "", "bob:stale content", "", ""}},
		{"older commit unknown to the cache: stale", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.Commit, v.Digest = apShaOld, "" })},
			nil, want{false, "", "bob:stale content", "", ""}},
		{"head commit counts even with an unknown digest", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.Digest = "" })},
			nil, want{true, "bob", "", "", ""}},
		{"changes requested after approval cancels it", one, "alice",
			[]Vote{apApprove("bob", 1), with(apApprove("bob", 2), func(v *Vote) { v.State = VoteChangesRequested })},
			nil, want{false, "", "bob:superseded", "", ""}},
		{"order is by time, not input", one, "alice",
			[]Vote{with(apApprove("bob", 2), func(v *Vote) { v.State = VoteChangesRequested }), apApprove("bob", 1)},
			nil, want{false, "", "bob:superseded", "", ""}},
		{"approval after changes requested counts", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.State = VoteChangesRequested }), apApprove("bob", 2)},
			nil, want{true, "bob", "", "", ""}},
		{"dismissed approval", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.State = VoteDismissed })},
			nil, want{false, "", "bob:dismissed", "", ""}},
		{"a later dismissal cancels an earlier approval", one, "alice",
			[]Vote{apApprove("bob", 1), with(apApprove("bob", 2), func(v *Vote) { v.State = VoteDismissed })},
			nil, want{false, "", "bob:superseded,bob:dismissed", "", ""}},
		{"/porch approve after a stale review counts", one, "alice",
			[]Vote{with(apApprove("bob", 1), func(v *Vote) { v.Commit, v.Digest = apShaOld, apDigestOld }),
				with(apApprove("bob", 2), func(v *Vote) { v.Source = VoteFromCommand })},
			nil, want{true, "bob", "bob:superseded", "", ""}},
		{"a stale later approval replaces a fresh earlier one", one, "alice",
			[]Vote{apApprove("bob", 1), with(apApprove("bob", 2), func(v *Vote) { v.Commit, v.Digest = apShaOld2, apDigestOld })},
			nil, want{false, "", "bob:superseded,bob:stale content", "", ""}},
		{"gates met", one, "alice", []Vote{apApprove("bob", 1)},
			[]GateStatus{gate("Tested", "True")}, want{true, "bob", "", "", ""}},
		{"gate not met", one, "alice", []Vote{apApprove("bob", 1)},
			[]GateStatus{gate("Tested", "True"), gate("Reviewed", "False"), gate("Scanned", "")},
			want{false, "bob", "", "Reviewed,Scanned",
				"Approvals complete: @bob (1 of 1 required); readiness gates not met: Reviewed, Scanned."}},
		{"mixed", two, "alice",
			[]Vote{apApprove("alice", 1), apApprove("bob", 2),
				with(apApprove("carol", 3), func(v *Vote) { v.Allowed = false }),
				with(apApprove("dave", 4), func(v *Vote) { v.Commit, v.Digest = apShaOld, apDigestOld }),
				apApprove("erin", 5)},
			[]GateStatus{gate("Tested", "Unknown")},
			want{false, "bob,erin", "alice:self-approval,carol:not an approver,dave:stale content", "Tested",
				"Approvals complete: @bob, @erin (2 of 2 required); 3 approvals not counted; readiness gate not met: Tested."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := Evaluate(c.policy, Inputs{Author: c.author, Head: apShaHead, HeadDigest: apDigestHead, Votes: c.votes, Gates: c.gates})
			var counted, ignored, gates []string
			for _, a := range res.Approvers {
				counted = append(counted, a.User)
			}
			for _, ig := range res.Ignored {
				ignored = append(ignored, ig.User+":"+string(ig.Reason))
				if ig.Detail == "" {
					t.Errorf("ignored %s has no detail", ig.User)
				}
			}
			for _, g := range res.MissingGates {
				gates = append(gates, g.ConditionType)
			}
			got := want{res.Satisfied, strings.Join(counted, ","), strings.Join(ignored, ","), strings.Join(gates, ","), res.Summary}
			if c.want.summary == "" {
				got.summary = ""
			}
			if got != c.want {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestEvaluateMarkdownExplainsEveryVerdict(t *testing.T) {
	policy := config.Approvals{Required: 2, Approvers: []config.UserOrTeam{{Login: "bob"}, {Org: "acme", Team: "platform"}}}
	res := Evaluate(policy, Inputs{Author: "alice", Head: apShaHead, HeadDigest: apDigestHead,
		Votes: []Vote{apApprove("alice", 1), {User: "bob", State: VoteApproved, Source: VoteFromReview, Commit: apShaOld, Digest: apDigestHead, SameTrees: true, At: apAt(2), Allowed: true},
			{User: "carol", State: VoteApproved, Source: VoteFromCommand, Commit: apShaHead, Digest: apDigestHead, At: apAt(3), Note: "@carol is not a member of @acme/platform"}},
		Gates: []GateStatus{{ConditionType: "Reviewed", Status: "False", Reason: "Pending", Message: "security review"}}})
	md := res.Markdown(policy)
	for _, want := range []string{"2 approvals from bob, @acme/platform; self-approval not allowed",
		"| @bob | review | `2222222` (same package content as the head) |",
		"@alice (review on `1111111`): **self-approval**",
		"@carol (/porch approve on `1111111`): **not an approver** — @carol is not a member of @acme/platform; approvers are bob, @acme/platform",
		"`Reviewed`: False \\(Pending: security review\\)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestApproverCandidatesSkipsWhatCannotCount(t *testing.T) {
	votes := []Vote{apApprove("alice", 1), apApprove("bob", 2), apApprove("carol", 3),
		{User: "carol", State: VoteChangesRequested, At: apAt(4)}, apApprove("Bob", 5), apApprove("dave", 6)}
	got := ApproverCandidates(config.Approvals{Required: 1}, Inputs{Author: "alice", Votes: votes})
	if want := []string{"Bob", "dave"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
	got = ApproverCandidates(config.Approvals{Required: 1, AllowSelfApproval: true}, Inputs{Author: "alice", Votes: votes})
	if want := []string{"alice", "Bob", "dave"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("candidates %v, want %v", got, want)
	}
}

func TestReadinessGatesFromKptfile(t *testing.T) {
	f, err := kptfile.Parse([]byte("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\ninfo:\n  readinessGates:\n" +
		"  - conditionType: A\n  - conditionType: B\n  - conditionType: C\n" +
		"status:\n  conditions:\n  - type: A\n    status: \"True\"\n  - type: B\n    status: \"False\"\n    reason: R\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := ReadinessGates(f.Kptfile())
	want := []GateStatus{{ConditionType: "A", Status: "True"}, {ConditionType: "B", Status: "False", Reason: "R"}, {ConditionType: "C"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("gates %+v", got)
	}
	if !got[0].Met() || got[1].Met() || got[2].Met() || got[1].Describe() != "False (R)" ||
		got[2].Describe() != "no such condition in status.conditions" {
		t.Fatalf("met/describe wrong: %+v", got)
	}
	if ReadinessGates(&kptfile.Kptfile{}) != nil {
		t.Fatal("no info: no gates")
	}
}

func apQuietLog() logrus.FieldLogger {
	l := logrus.New()
	l.SetOutput(io.Discard)
	return l
}

func TestApprovalCommandVotesTrustOnlyTheBotsUneditedSignedRecords(t *testing.T) {
	bot := hub.User{Login: "porchbot[bot]", Type: "Bot"}
	alice := hub.User{Login: "alice", Type: "User"}
	comment := func(u hub.User, body string, edited bool) hub.Comment {
		c := hub.Comment{User: u, Body: body, CreatedAt: apT0, UpdatedAt: apT0}
		if edited {
			c.UpdatedAt = apT0.Add(time.Minute)
		}
		return c
	}
	rec := func(api ProposalAPI, user string) string {
		m := approveMarker{User: user, Head: apShaHead, Digest: "tree"}
		if len(api.RecordKey) > 0 {
			m.Sig = approveSignature(api.RecordKey, "acme/catalog", 7, m)
		}
		return "Approved by @" + user + "\n\n" + FormatBotMarker(approveMarkerKind, m) + "\n"
	}
	plain := ProposalAPI{}
	votes, digests := commandVotes(plain, "acme/catalog", 7, []hub.Comment{
		comment(bot, rec(plain, "bob"), false),
		comment(alice, rec(plain, "carol"), false), // forged: not the bot
		comment(bot, rec(plain, "dave"), true),     // edited after the fact
		comment(hub.User{Login: "porchbot[bot]", Type: "User"}, rec(plain, "erin"), false),
		comment(bot, "<!-- porchbot:approve {\"user\":\"frank\",\"head\":\"nothex\"} -->", false),
	}, apQuietLog())
	if len(votes) != 1 || votes[0].User != "bob" || votes[0].Source != VoteFromCommand || votes[0].Commit != apShaHead ||
		!votes[0].At.Equal(apT0) || digests[apShaHead] != "tree" {
		t.Fatalf("votes %+v digests %v", votes, digests)
	}

	keyed := ProposalAPI{RecordKey: []byte("k")}
	forgedSig := strings.Replace(rec(keyed, "bob"), `"user":"bob"`, `"user":"alice"`, 1)
	votes, _ = commandVotes(keyed, "acme/catalog", 7, []hub.Comment{
		comment(bot, rec(keyed, "bob"), false),
		comment(bot, forgedSig, false),
		comment(bot, rec(plain, "carol"), false), // unsigned
	}, apQuietLog())
	if len(votes) != 1 || votes[0].User != "bob" {
		t.Fatalf("signed votes %+v", votes)
	}
	// A record of another pull request does not verify here.
	votes, _ = commandVotes(keyed, "acme/catalog", 8, []hub.Comment{comment(bot, rec(keyed, "bob"), false)}, apQuietLog())
	if len(votes) != 0 {
		t.Fatalf("a record copied from another pull request counted: %+v", votes)
	}
}

func TestApprovalBotMarkersRoundTrip(t *testing.T) {
	m := FormatBotMarker("approve", approveMarker{User: "a--b", Head: apShaHead})
	if strings.Contains(strings.TrimSuffix(strings.TrimPrefix(m, "<!--"), "-->"), "--") {
		t.Fatalf("marker breaks the HTML comment: %s", m)
	}
	got := findBotMarkers("text\n  "+m+"  \nmore <!-- porchbot:approve {} without end", "approve")
	if len(got) != 1 || !strings.Contains(string(got[0]), `"head":"`+apShaHead+`"`) {
		t.Fatalf("markers %q", got)
	}
}

// apRefusing is the value fake refusing every permission and membership
// lookup with status.
type apRefusing struct {
	*hubtest.Fake
	status int
}

func (f apRefusing) Permission(context.Context, string, string, string) (hub.Permission, error) {
	return hub.Permission{}, &hub.Error{Status: f.status, Message: "nope"}
}

func (f apRefusing) TeamMembership(context.Context, string, string, string) (hub.Membership, error) {
	return hub.Membership{}, &hub.Error{Status: f.status, Message: "nope"}
}

func TestApproverResolverCachesAndClassifies(t *testing.T) {
	ctx := context.Background()
	repo := core.Repo{Owner: "acme", Name: "catalog"}
	fake := &hubtest.Fake{Permissions: map[string]hub.Permission{"alice": {Level: "admin"}, "bob": {Level: "write"}, "carol": {Level: "read"}},
		Teams: map[string][]string{"acme/platform": {"alice"}, "acme/sre": {"bob"}}}
	api := ProposalAPI{Repos: fake, Teams: fake}
	calls := func() int { return len(fake.Calls) }

	// Empty list: write access, one call per distinct user.
	r := NewApproverResolver(api, repo, nil)
	for _, c := range []struct {
		user string
		want bool
	}{{"alice", true}, {"bob", true}, {"carol", false}, {"mallory", false}, {"Bob", true}, {"carol", false}} {
		ok, note, err := r.Allowed(ctx, c.user)
		if err != nil || ok != c.want || (!ok && note == "") {
			t.Errorf("%s: %v %q %v", c.user, ok, note, err)
		}
	}
	if calls() != 4 || r.Lookups() != 4 {
		t.Fatalf("calls %d lookups %d, want 4", calls(), r.Lookups())
	}

	// Logins: no call; teams: one call per user and team, first match wins.
	fake.Calls = nil
	r = NewApproverResolver(api, repo, []config.UserOrTeam{{Login: "Carol"}, {Org: "acme", Team: "platform"}, {Org: "acme", Team: "sre"}})
	if ok, _, _ := r.Allowed(ctx, "carol"); !ok || calls() != 0 {
		t.Fatalf("listed login: %v, %d calls", ok, calls())
	}
	if ok, _, _ := r.Allowed(ctx, "alice"); !ok || calls() != 1 {
		t.Fatalf("platform member: %v, %d calls", ok, calls())
	}
	if ok, _, _ := r.Allowed(ctx, "bob"); !ok || calls() != 3 {
		t.Fatalf("sre member: %v, %d calls", ok, calls())
	}
	ok, note, _ := r.Allowed(ctx, "mallory")
	if ok || calls() != 5 || !strings.Contains(note, "not a member of @acme/platform") || !strings.Contains(note, "@acme/sre") {
		t.Fatalf("mallory: %v %q, %d calls", ok, note, calls())
	}
	r.Allowed(ctx, "mallory")
	if calls() != 5 {
		t.Fatal("answers must be cached")
	}

	// A refusal (403) is a negative answer with a note; a 502 is an error.
	api = ProposalAPI{Repos: apRefusing{fake, http.StatusForbidden}, Teams: apRefusing{fake, http.StatusForbidden}}
	r = NewApproverResolver(api, repo, []config.UserOrTeam{{Org: "acme", Team: "platform"}})
	if ok, note, err := r.Allowed(ctx, "alice"); ok || err != nil || !strings.Contains(note, "could not be checked") {
		t.Fatalf("403: %v %q %v", ok, note, err)
	}
	api = ProposalAPI{Repos: apRefusing{fake, http.StatusBadGateway}, Teams: apRefusing{fake, http.StatusBadGateway}}
	r = NewApproverResolver(api, repo, nil)
	if _, _, err := r.Allowed(ctx, "alice"); err == nil {
		t.Fatal("502 must be an error")
	}
}
