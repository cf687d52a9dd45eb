package packages

import (
	"reflect"
	"testing"
)

func TestParseTag(t *testing.T) {
	tests := []struct {
		ref  string
		pkg  string
		rev  int
		ok   bool
		name bool // ParseTagName instead
	}{
		{ref: "refs/tags/upf/v1", pkg: "upf", rev: 1, ok: true},
		{ref: "refs/tags/network/upf/v12", pkg: "network/upf", rev: 12, ok: true},
		{ref: "refs/tags/a/v1/v2", pkg: "a/v1", rev: 2, ok: true},
		{ref: "refs/tags/upf/v999999999", pkg: "upf", rev: 999999999, ok: true},
		{ref: "refs/tags/upf/v1000000000"},
		{ref: "refs/tags/upf/v0"},
		{ref: "refs/tags/upf/v01"},
		{ref: "refs/tags/upf/v"},
		{ref: "refs/tags/upf/1"},
		{ref: "refs/tags/upf/v1.0"},
		{ref: "refs/tags/upf/v-1"},
		{ref: "refs/tags/upf/V1"},
		{ref: "refs/tags/v1"},
		{ref: "refs/tags//v1"},
		{ref: "refs/tags/.github/v1"},
		{ref: "refs/heads/upf/v1"},
		{ref: "upf/v1"},
		{ref: "upf/v3", pkg: "upf", rev: 3, ok: true, name: true},
		{ref: "refs/tags/upf/v3", pkg: "refs/tags/upf", rev: 3, ok: true, name: true},
		{ref: "v3", name: true},
	}
	for _, tt := range tests {
		var (
			pkg string
			rev int
			ok  bool
		)
		if tt.name {
			pkg, rev, ok = ParseTagName(tt.ref)
		} else {
			pkg, rev, ok = ParseTag(tt.ref)
		}
		if pkg != tt.pkg || rev != tt.rev || ok != tt.ok {
			t.Errorf("parse %q = (%q, %d, %v), want (%q, %d, %v)", tt.ref, pkg, rev, ok, tt.pkg, tt.rev, tt.ok)
		}
	}
}

func TestTagNames(t *testing.T) {
	if got := TagName("network/upf", 3); got != "network/upf/v3" {
		t.Errorf("TagName = %q", got)
	}
	if got := TagRef("upf", 10); got != "refs/tags/upf/v10" {
		t.Errorf("TagRef = %q", got)
	}
	for _, n := range []int{1, 2, 10, 99, 12345} {
		if pkg, rev, ok := ParseTag(TagRef("a/b", n)); !ok || pkg != "a/b" || rev != n {
			t.Errorf("ParseTag(TagRef(a/b, %d)) = %q %d %v", n, pkg, rev, ok)
		}
	}
}

func TestRevisions(t *testing.T) {
	got := Revisions([]string{
		"refs/tags/upf/v2", "upf/v1", "refs/tags/upf/v10", "refs/tags/upf/v2",
		"refs/tags/network/smf/v1", "refs/heads/upf/v7", "release-1.0", "refs/tags/upf/v01",
	})
	want := map[string][]int{"upf": {1, 2, 10}, "network/smf": {1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Revisions = %v, want %v", got, want)
	}
	if len(Revisions(nil)) != 0 {
		t.Error("Revisions(nil) is not empty")
	}
}

func TestLatestNextGaps(t *testing.T) {
	tests := []struct {
		revs         []int
		latest, next int
		gaps         []int
	}{
		{nil, 0, 1, nil},
		{[]int{1}, 1, 2, nil},
		{[]int{1, 2, 3}, 3, 4, nil},
		{[]int{3, 1, 2}, 3, 4, nil},
		{[]int{1, 3}, 3, 4, []int{2}},
		{[]int{2, 5}, 5, 6, []int{1, 3, 4}},
	}
	for _, tt := range tests {
		if got := Latest(tt.revs); got != tt.latest {
			t.Errorf("Latest(%v) = %d, want %d", tt.revs, got, tt.latest)
		}
		if got := Next(tt.revs); got != tt.next {
			t.Errorf("Next(%v) = %d, want %d", tt.revs, got, tt.next)
		}
		if got := Gaps(tt.revs); !reflect.DeepEqual(got, tt.gaps) {
			t.Errorf("Gaps(%v) = %v, want %v", tt.revs, got, tt.gaps)
		}
	}
}

func TestParseRevision(t *testing.T) {
	for s, want := range map[string]int{"v1": 1, "v42": 42, "1": 0, "v0": 0, "v07": 0, "latest": 0, "": 0} {
		got, ok := ParseRevision(s)
		if got != want || ok != (want > 0) {
			t.Errorf("ParseRevision(%q) = %d %v, want %d", s, got, ok, want)
		}
	}
}
