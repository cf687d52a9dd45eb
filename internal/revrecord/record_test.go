package revrecord

import (
	"errors"
	"strings"
	"testing"
)

func TestRecordRoundTrip(t *testing.T) {
	key := []byte("k")
	rec := Sign(key, Record{Repo: "Acme/Catalog", Package: "network/upf", Revision: 3, Commit: strings.Repeat("ab", 20),
		Approvers: []string{"bob"}, PR: 7})
	msg := Message(rec)
	got, err := Verify(key, msg, "acme/catalog", "network/upf", 3, strings.Repeat("AB", 20))
	if err != nil || got.PR != 7 || got.Approvers[0] != "bob" {
		t.Fatalf("%+v %v\n%s", got, err, msg)
	}
	for name, tc := range map[string]struct {
		key, msg, repo, pkg string
		n                   int
		commit              string
		want                error
	}{
		"no record":      {"k", "network/upf/v3\n", "acme/catalog", "network/upf", 3, rec.Commit, ErrNoRecord},
		"other key":      {"x", msg, "acme/catalog", "network/upf", 3, rec.Commit, ErrSignature},
		"approver added": {"k", strings.Replace(msg, `["bob"]`, `["bob","mallory"]`, 1), "acme/catalog", "network/upf", 3, rec.Commit, ErrSignature},
		"other repo":     {"k", msg, "acme/fork", "network/upf", 3, rec.Commit, ErrSubject},
		"other package":  {"k", msg, "acme/catalog", "network/smf", 3, rec.Commit, ErrSubject},
		"other revision": {"k", msg, "acme/catalog", "network/upf", 4, rec.Commit, ErrSubject},
		"other commit":   {"k", msg, "acme/catalog", "network/upf", 3, strings.Repeat("cd", 20), ErrSubject},
	} {
		if _, err := Verify([]byte(tc.key), tc.msg, tc.repo, tc.pkg, tc.n, tc.commit); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
	}
}

func TestIndexSignature(t *testing.T) {
	key, data := []byte("k"), []byte("packages: []\n")
	msg := SignIndexMessage(key, "acme/catalog", data, "Index: rebuild")
	if !IndexSigned(key, "acme/catalog", data, msg) {
		t.Fatalf("not signed:\n%s", msg)
	}
	if IndexSigned(key, "acme/catalog", []byte("packages: [x]\n"), msg) || IndexSigned(key, "acme/other", data, msg) ||
		IndexSigned([]byte("x"), "acme/catalog", data, msg) || IndexSigned(key, "acme/catalog", data, "Index: rebuild") {
		t.Fatal("a signature that should not hold")
	}
}
