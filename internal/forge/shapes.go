package forge

import (
	"bytes"
	"encoding/json"
	"strings"
)

// The forge builds its objects with go-github's types, whose every field
// is "omitempty": marshalled as is, an empty list or a null GitHub always
// sends would be left out, and a client checking GitHub's descriptions
// (testdata/github-openapi) would find the object short. marshalGitHub
// marshals an answer or payload and then puts back, object by object,
// the members GitHub always sends: null for an absent value, [] for an
// empty list, the counters and links. It only adds members (and drops a
// few go-github cannot leave out); a value the forge set is kept.

// shapeFor says where an object goes: REST answers and webhook payloads
// differ in a few members.
type shapeFor int

const (
	forREST shapeFor = iota
	forWebhook
)

// marshalGitHub is json.Marshal with GitHub's always-present members.
func marshalGitHub(v any, where shapeFor) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	shapeValue(doc, where)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// shapeValue walks a decoded document, shaping each object it recognises.
func shapeValue(v any, where shapeFor) {
	switch t := v.(type) {
	case map[string]any:
		for _, x := range t {
			shapeValue(x, where)
		}
		shapeObject(t, where)
	case []any:
		for _, x := range t {
			shapeValue(x, where)
		}
	}
}

func has(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	return true
}

// setDefault sets m[k] when absent.
func setDefault(m map[string]any, k string, v any) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

func nulls(m map[string]any, keys ...string) {
	for _, k := range keys {
		setDefault(m, k, nil)
	}
}

func emptyLists(m map[string]any, keys ...string) {
	for _, k := range keys {
		setDefault(m, k, []any{})
	}
}

// shapeObject recognises an object by the members only it carries.
func shapeObject(m map[string]any, where shapeFor) {
	switch {
	case has(m, "full_name", "git_url", "owner"):
		shapeRepository(m, where)
	case has(m, "login", "followers_url"):
		shapeUser(m)
	case has(m, "slug", "members_url", "repositories_url"):
		nulls(m, "parent") // a team
		setDefault(m, "type", "organization")
	case has(m, "access_tokens_url", "repositories_url"):
		nulls(m, "suspended_by", "suspended_at") // an installation
	case has(m, "tag_name", "tarball_url"):
		setDefault(m, "immutable", false) // a release
		setDefault(m, "updated_at", m["created_at"])
	case has(m, "issue_url", "author_association", "user") && !has(m, "pull_request_url") && !has(m, "number"):
		nulls(m, "performed_via_github_app") // an issue comment
	case has(m, "commit", "sha", "comments_url"):
		emptyLists(m, "parents") // a repository commit (a root commit has none)
		// its author and committer as users: null when no user has the
		// commit's email, as GitHub sends them
		nulls(m, "author", "committer")
	case has(m, "tree", "message", "url"):
		shapeGitCommit(m)
	case has(m, "verified", "reason"):
		nulls(m, "payload", "signature", "verified_at") // a commit's verification
	case has(m, "number", "head", "base"):
		shapePull(m)
	case has(m, "number", "labels_url", "comments_url", "state"):
		shapeIssue(m)
	}
}

func shapeRepository(m map[string]any, where shapeFor) {
	setDefault(m, "forks", m["forks_count"])
	setDefault(m, "network_count", json.Number("0"))
	setDefault(m, "subscribers_count", json.Number("0"))
	emptyLists(m, "topics")
	setDefault(m, "has_discussions", false)
	if s, ok := m["mirror_url"].(string); ok && s == "" {
		m["mirror_url"] = nil
	}
	nulls(m, "mirror_url", "license", "language", "homepage", "description")
	switch org := m["organization"].(type) {
	case string:
		// push's repository names its organisation by login, as GitHub's
	case map[string]any:
		if where == forWebhook {
			delete(m, "organization") // other payloads' repositories name none
		} else if owner, ok := m["owner"].(map[string]any); ok && org != nil {
			m["organization"] = owner // the owning organisation, as a simple user
		}
	}
}

func shapeUser(m map[string]any) {
	setDefault(m, "gravatar_id", "")
	setDefault(m, "site_admin", false)
}

func shapePull(m map[string]any) {
	nulls(m, "closed_at", "merged_at", "milestone", "auto_merge", "active_lock_reason", "assignee",
		"merged_by", "merge_commit_sha", "body")
	emptyLists(m, "labels", "assignees", "requested_reviewers", "requested_teams")
}

func shapeIssue(m map[string]any) {
	nulls(m, "closed_at", "milestone", "active_lock_reason", "assignee", "body", "performed_via_github_app")
	emptyLists(m, "labels", "assignees")
}

// shapeGitCommit gives a commit's tree its url (go-github's Tree has
// none), next to the commit's own: .../git/commits/{sha} → .../git/trees/{tree}.
func shapeGitCommit(m map[string]any) {
	tree, _ := m["tree"].(map[string]any)
	self, _ := m["url"].(string)
	sha, _ := tree["sha"].(string)
	i := strings.LastIndex(self, "/git/commits/")
	if tree == nil || sha == "" || i < 0 {
		return
	}
	setDefault(tree, "url", self[:i]+"/git/trees/"+sha)
}
