package approval

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/config"
)

// FuzzApprovalVerdict drives a proposal through any sequence of pushes
// (content changes, new and removed packages, changes confined to Kptfile
// status.conditions), reviews, /porch approve records, body edits and a
// merge, and checks the verdict at the merge against a model: it is met
// (a tag would be made) exactly when Required distinct allowed approvers,
// none of them the requester unless self-approval is allowed, last
// approved a commit whose content equals the head's for every package the
// head changes.
func FuzzApprovalVerdict(f *testing.F) {
	// Each op is three bytes: kind, a, b (see apfApply). The first byte
	// sets the policy.
	for _, seed := range [][]byte{
		{0, 0, 0, 5, 3, 1, 0, 8, 0, 0},                   // p0 changed, u1 approves, merge
		{0, 0, 0, 5, 3, 1, 0, 0, 2, 1, 8, 0, 0},          // approval, then p2 added: stale
		{0, 0, 0, 5, 3, 1, 0, 1, 0, 4, 8, 0, 0},          // approval, then a status flip: kept
		{0, 0, 0, 5, 6, 0, 0, 7, 2, 0, 8, 0, 0},          // self /porch approve, body names u2
		{1, 0, 0, 5, 3, 1, 0, 3, 2, 0, 5, 1, 0, 8, 0, 0}, // two required, one cancelled
		{4, 2, 0, 0, 6, 3, 0, 3, 1, 0, 8, 0, 0},          // removal approved by a non-approver and u1
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 3*64+1 {
			return
		}
		m := newApfModel(data[0])
		ops := data[1:]
		for i := 0; i+2 < len(ops); i += 3 {
			if m.apply(ops[i], ops[i+1], ops[i+2]) {
				break
			}
		}
		m.merge(t)
	})
}

const apfPackages, apfUsers = 4, 4

// apfPkg is a package in the model: its content, and its readiness
// conditions (Kptfile status.conditions), which are not content.
type apfPkg struct {
	exists          bool
	content, status byte
}

type apfState [apfPackages]apfPkg

type apfVote struct {
	user   int
	state  VoteState
	source VoteSource
	commit string
}

type apfModel struct {
	policy    config.Approvals
	requester int
	commits   map[string]apfState
	head      string
	base      apfState
	votes     []apfVote
	n         int
}

func newApfModel(p byte) *apfModel {
	m := &apfModel{policy: config.Approvals{Required: int(p%3) + 1, AllowSelfApproval: p&4 != 0},
		commits: map[string]apfState{}}
	m.base[0] = apfPkg{exists: true}
	m.base[1] = apfPkg{exists: true}
	m.push(m.base)
	return m
}

func (m *apfModel) push(st apfState) {
	m.n++
	m.head = fmt.Sprintf("%040x", m.n)
	m.commits[m.head] = st
}

// apply runs one op; it reports the merge (the end).
func (m *apfModel) apply(kind, a, b byte) bool {
	st := m.commits[m.head]
	pkg, user := int(a)%apfPackages, int(a)%apfUsers
	switch kind % 9 {
	case 0: // a push changing (or adding) a package
		st[pkg] = apfPkg{exists: true, content: b, status: st[pkg].status}
		m.push(st)
	case 1: // a push changing only readiness conditions
		if st[pkg].exists {
			st[pkg].status = b
			m.push(st)
		}
	case 2: // a push removing a package
		st[pkg] = apfPkg{}
		m.push(st)
	case 3:
		m.votes = append(m.votes, apfVote{user, VoteApproved, VoteFromReview, m.head})
	case 4:
		m.votes = append(m.votes, apfVote{user, VoteChangesRequested, VoteFromReview, m.head})
	case 5:
		m.votes = append(m.votes, apfVote{user, VoteDismissed, VoteFromReview, m.head})
	case 6:
		m.votes = append(m.votes, apfVote{user, VoteApproved, VoteFromCommand, m.head})
	case 7:
		// A body edit naming someone else: the requester record is the
		// bot's, so nothing the verdict reads changes.
	case 8:
		return true
	}
	return false
}

func apfDigest(p apfPkg) string {
	if !p.exists {
		return digestAbsent
	}
	return fmt.Sprintf("content-%d", p.content)
}

func apfLogin(u int) string { return fmt.Sprintf("u%d", u) }

// changed are the packages the head changes against the base.
func (m *apfModel) changed() []int {
	var out []int
	head := m.commits[m.head]
	for p := range apfPackages {
		if head[p] != m.base[p] {
			out = append(out, p)
		}
	}
	return out
}

func (m *apfModel) facts() StaticProposalFacts {
	head := m.commits[m.head]
	changed := m.changed()
	f := StaticProposalFacts{RequesterLogin: apfLogin(m.requester), HeadCommit: m.head,
		Approvers: map[string]bool{"u0": true, "u1": true, "u2": true}} // u3 may not approve
	for _, p := range changed {
		f.Changes = append(f.Changes, PackageChange{Name: fmt.Sprintf("p%d", p), Digest: apfDigest(head[p])})
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, v := range m.votes {
		at := m.commits[v.commit]
		digests := map[string]string{}
		same := true
		for _, p := range changed {
			digests[fmt.Sprintf("p%d", p)] = apfDigest(at[p])
			same = same && at[p] == head[p]
		}
		f.VoteList = append(f.VoteList, Vote{User: apfLogin(v.user), State: v.state, Source: v.source, Commit: v.commit,
			Digest: ProposalDigest(digests), Digests: digests, SameTrees: same, At: t0.Add(time.Duration(i) * time.Second)})
	}
	return f
}

// covered: the model's own answer, user by user.
func (m *apfModel) covered() []string {
	head := m.commits[m.head]
	latest := map[int]apfVote{}
	for _, v := range m.votes {
		latest[v.user] = v
	}
	var out []string
	for u := range apfUsers {
		v, ok := latest[u]
		if !ok || v.state != VoteApproved || u == 3 || (u == m.requester && !m.policy.AllowSelfApproval) {
			continue
		}
		at, same := m.commits[v.commit], true
		for _, p := range m.changed() {
			same = same && apfDigest(at[p]) == apfDigest(head[p])
		}
		if same {
			out = append(out, apfLogin(u))
		}
	}
	return out
}

func (m *apfModel) merge(t *testing.T) {
	res, _, err := Verdict(context.Background(), m.policy, m.facts())
	if err != nil {
		t.Fatal(err)
	}
	want := m.covered()
	if res.Satisfied != (len(want) >= m.policy.Required) {
		t.Fatalf("verdict %v (%s), but the approvals that cover the head are %v (required %d)",
			res.Satisfied, res.Summary, want, m.policy.Required)
	}
	if res.Satisfied {
		for _, a := range res.Approvers {
			if !apfContains(want, a.User) {
				t.Fatalf("counted %s, whose approval does not cover the head (covering: %v)", a.User, want)
			}
		}
	}
}

func apfContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
