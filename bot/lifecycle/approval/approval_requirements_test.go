package approval

import (
	"context"
	"strings"
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/rendercheck"
	"github.com/porchbot/porchbot/internal/config"
)

// Table tests of the approval requirements, one predicate each, and of
// Verdict on a value of ProposalFacts.

func TestSelfExcluded(t *testing.T) {
	strict := config.Approvals{Required: 1}
	lax := config.Approvals{Required: 1, AllowSelfApproval: true}
	cases := []struct {
		name            string
		policy          config.Approvals
		requester, user string
		want            bool
		detail          string
	}{
		{"requester approves", strict, "alice", "alice", true, "own approval"},
		{"case folded", strict, "Alice", "@alice", true, "own approval"},
		{"someone else", strict, "alice", "bob", false, ""},
		{"requester unknown", strict, "", "bob", true, "record of who asked"},
		{"allowed", lax, "alice", "alice", false, ""},
		{"allowed, requester unknown", lax, "", "bob", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, detail := SelfExcluded(c.policy, c.requester, c.user)
			if got != c.want || !strings.Contains(detail, c.detail) {
				t.Fatalf("selfExcluded = %v %q, want %v %q", got, detail, c.want, c.detail)
			}
		})
	}
}

func TestApproverRefused(t *testing.T) {
	listed := config.Approvals{Required: 1, Approvers: []config.UserOrTeam{{Login: "bob"}, {Org: "acme", Team: "platform"}}}
	cases := []struct {
		name   string
		policy config.Approvals
		vote   Vote
		want   bool
		detail string
	}{
		{"allowed", listed, Vote{User: "bob", Allowed: true}, false, ""},
		{"not listed", listed, Vote{User: "carol", Note: "@carol is not listed"}, true, "@carol is not listed; approvers are bob, @acme/platform"},
		{"write access", config.Approvals{Required: 1}, Vote{User: "carol", Note: "@carol has read access"}, true, "users with write access"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, detail := approverRefused(c.policy, c.vote)
			if got != c.want || !strings.Contains(detail, c.detail) {
				t.Fatalf("approverRefused = %v %q", got, detail)
			}
		})
	}
}

func TestStaleApproval(t *testing.T) {
	in := Inputs{Head: apShaHead, HeadDigest: "P2", Packages: []PackageChange{
		{Name: "hello", Digest: "h1"}, {Name: "other", Digest: "o1"}, {Name: "gone", Digest: digestAbsent}}}
	cases := []struct {
		name   string
		vote   Vote
		stale  bool
		detail string
	}{
		{"on the head", Vote{Commit: apShaHead}, false, ""},
		{"same content", Vote{Commit: apShaOld, Digest: "P2"}, false, ""},
		{"unknown commit", Vote{Commit: apShaOld}, true, "no longer known"},
		{"package added", Vote{Commit: apShaOld, Digest: "P1", Digests: map[string]string{"hello": "h1", "other": digestAbsent, "gone": digestAbsent}},
			true, "`other` was added"},
		{"package removed", Vote{Commit: apShaOld, Digest: "P1", Digests: map[string]string{"hello": "h1", "other": "o1", "gone": "g0"}},
			true, "`gone` was removed"},
		{"package changed", Vote{Commit: apShaOld, Digest: "P1", Digests: map[string]string{"hello": "h0", "other": "o1", "gone": digestAbsent}},
			true, "`hello` changed"},
		{"digests not known", Vote{Commit: apShaOld, Digest: "P1"}, true, "content changed since"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stale, detail := staleApproval(c.vote, in)
			if stale != c.stale || !strings.Contains(detail, c.detail) {
				t.Fatalf("staleApproval = %v %q", stale, detail)
			}
		})
	}
	if n := carriedNote(Vote{Commit: apShaOld, SameTrees: true}, in); !strings.Contains(n, "same package content") {
		t.Fatalf("carried note %q", n)
	}
	if n := carriedNote(Vote{Commit: apShaOld}, in); !strings.Contains(n, "status.conditions") {
		t.Fatalf("carried note %q", n)
	}
}

func TestUnmetGates(t *testing.T) {
	cases := []struct {
		name  string
		gates []GateStatus
		want  string
	}{
		{"none", nil, ""},
		{"all met", []GateStatus{{ConditionType: "A", Status: "True"}}, ""},
		{"false and missing", []GateStatus{{ConditionType: "A", Status: "True"}, {ConditionType: "B", Status: "False"}, {ConditionType: "C"}}, "B,C"},
		{"unknown", []GateStatus{{ConditionType: "A", Status: "Unknown"}}, "A"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, g := range unmetGates(c.gates) {
				got = append(got, g.ConditionType)
			}
			if strings.Join(got, ",") != c.want {
				t.Fatalf("unmet %v, want %s", got, c.want)
			}
		})
	}
}

func TestRenderProblem(t *testing.T) {
	for st, want := range map[rendercheck.RenderState]string{rendercheck.RenderUnknown: "", rendercheck.RenderPassed: "", rendercheck.RenderFailed: "failed", rendercheck.RenderPending: "not finished"} {
		if got := rendercheck.RenderProblem(st); (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("renderProblem(%q) = %q", st, got)
		}
	}
}

func TestVerdictOnStaticFacts(t *testing.T) {
	policy := config.Approvals{Required: 1}
	pkgs := []PackageChange{{Name: "hello", Digest: "h1"}}
	head := proposalDigestOf(pkgs)
	f := StaticProposalFacts{RequesterLogin: "alice", HeadCommit: apShaHead, Changes: pkgs,
		VoteList: []Vote{
			{User: "alice", State: VoteApproved, Commit: apShaHead, At: apAt(1)},
			{User: "carol", State: VoteApproved, Commit: apShaHead, At: apAt(2)},
			{User: "bob", State: VoteApproved, Commit: apShaOld, Digest: head, SameTrees: true, At: apAt(3)},
		},
		Approvers: map[string]bool{"alice": true, "bob": true}}
	res, in, err := Verdict(context.Background(), policy, f)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Satisfied || len(res.Approvers) != 1 || res.Approvers[0].User != "bob" || in.HeadDigest != head {
		t.Fatalf("verdict %+v", res)
	}
	f.RenderState = rendercheck.RenderFailed
	if res, _, _ := Verdict(context.Background(), policy, f); res.Satisfied || !strings.Contains(res.Summary, "render check failed") {
		t.Fatalf("verdict with a failed render: %+v", res)
	}
}

func TestWithoutConditions(t *testing.T) {
	base := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n"
	withCond := base + "status:\n  conditions:\n    - type: Ready\n      status: \"True\"\n"
	withOther := base + "status:\n  renderStatus: ok\n  conditions:\n    - type: Ready\n      status: \"False\"\n"
	cases := []struct {
		name string
		a, b string
		same bool
	}{
		{"conditions only", base, withCond, true},
		{"condition flipped", withCond, strings.Replace(withCond, `"True"`, `"False"`, 1), true},
		{"other status stays", base, withOther, false},
		{"a real change", base, strings.Replace(base, "name: p", "name: q", 1), false},
		{"second document", base, withCond + "---\nkind: Other\n", false},
		{"not yaml", "{", "{ ", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			same := string(withoutConditions([]byte(c.a))) == string(withoutConditions([]byte(c.b)))
			if same != c.same {
				t.Fatalf("same %v:\n%s\n---\n%s", same, withoutConditions([]byte(c.a)), withoutConditions([]byte(c.b)))
			}
		})
	}
}
