package forge

import (
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
	"github.com/gorilla/mux"
)

// routesReleases serves releases: create (creating the tag at
// target_commitish when it does not exist, as GitHub does), list, get by
// id, by tag (tags may hold slashes: "network/upf/v3") and latest, edit,
// delete, and generated notes.
func (f *Forge) routesReleases(api *mux.Router) {
	api.HandleFunc("/repos/{owner}/{repo}/releases", f.repoHandler(PermRead, f.listReleases)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases", f.repoHandler(PermWrite, withBody(f.createRelease))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/releases/latest", f.repoHandler(PermRead, f.getLatestRelease)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases/generate-notes", f.repoHandler(PermWrite, withBody(f.generateNotes))).Methods(http.MethodPost)
	api.HandleFunc("/repos/{owner}/{repo}/releases/tags/{tag:.+}", f.repoHandler(PermRead, f.getReleaseByTag)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases/{id}", f.repoHandler(PermRead, f.getRelease)).Methods(http.MethodGet)
	api.HandleFunc("/repos/{owner}/{repo}/releases/{id}", f.repoHandler(PermWrite, f.editRelease)).Methods(http.MethodPatch)
	api.HandleFunc("/repos/{owner}/{repo}/releases/{id}", f.repoHandler(PermWrite, f.deleteRelease)).Methods(http.MethodDelete)
}

// maxReleaseBody is GitHub's limit on a release body.
const maxReleaseBody = 125000

// releaseRequest is the body of create and edit.
type releaseRequest struct {
	TagName              *string `json:"tag_name"`
	TargetCommitish      *string `json:"target_commitish"`
	Name                 *string `json:"name"`
	Body                 *string `json:"body"`
	Draft                *bool   `json:"draft"`
	Prerelease           *bool   `json:"prerelease"`
	MakeLatest           *string `json:"make_latest"`
	GenerateReleaseNotes *bool   `json:"generate_release_notes"`
}

// releaseObject is a release as GitHub shows it.
func (f *Forge) releaseObject(repo *Repo, rel Release) map[string]any {
	api := fmt.Sprintf("%s/repos/%s/releases/%d", f.apiBase(), repo.FullName(), rel.ID)
	web := f.webBase() + "/" + repo.FullName()
	obj := &github.RepositoryRelease{
		ID: github.Int64(rel.ID), NodeID: github.String(nodeID("Release", rel.ID)),
		TagName: github.String(rel.TagName), TargetCommitish: github.String(rel.Target),
		Name: github.String(rel.Name), Body: github.String(rel.Body),
		Draft: github.Bool(rel.Draft), Prerelease: github.Bool(rel.Prerelease),
		CreatedAt: ts(rel.CreatedAt), Author: f.userObject(rel.Author),
		URL: github.String(api), AssetsURL: github.String(api + "/assets"),
		UploadURL:  github.String(fmt.Sprintf("%s/api/uploads/repos/%s/releases/%d/assets{?name,label}", f.BaseURL(), repo.FullName(), rel.ID)),
		HTMLURL:    github.String(web + "/releases/tag/" + rel.TagName),
		TarballURL: github.String(f.apiBase() + "/repos/" + repo.FullName() + "/tarball/" + rel.TagName),
		ZipballURL: github.String(f.apiBase() + "/repos/" + repo.FullName() + "/zipball/" + rel.TagName),
	}
	if rel.PublishedAt != nil {
		obj.PublishedAt = ts(*rel.PublishedAt)
	}
	m := jsonObjectOf(obj)
	m["assets"] = f.releaseAssetObjects(repo, rel)
	if rel.PublishedAt == nil {
		m["published_at"] = nil
	}
	return m
}

// canSeeDrafts: drafts are visible to those who may push.
func (f *Forge) canSeeDrafts(p *principal, repo *Repo) bool {
	return f.permission(p, repo) >= PermWrite
}

// releasesSorted copies the repository's releases, newest first.
func releasesSorted(repo *Repo, drafts bool) []Release {
	repo.mu.Lock()
	defer repo.mu.Unlock()
	out := make([]Release, 0, len(repo.Releases))
	for _, r := range repo.Releases {
		if r.Draft && !drafts {
			continue
		}
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].CreatedAt.Equal(out[j].CreatedAt) {
			return out[i].CreatedAt.After(out[j].CreatedAt)
		}
		return out[i].ID > out[j].ID
	})
	return out
}

// Releases returns copies of a repository's releases, newest first
// (drafts included), for tests.
func (f *Forge) Releases(fullName string) []Release {
	repo, ok := f.Repo(fullName)
	if !ok {
		return nil
	}
	return releasesSorted(repo, true)
}

func (f *Forge) listReleases(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rels := releasesSorted(rc.repo, f.canSeeDrafts(rc.caller, rc.repo))
	pageRels := paginate(w, r, f.BaseURL(), rels)
	out := make([]map[string]any, 0, len(pageRels))
	for _, rel := range pageRels {
		out = append(out, f.releaseObject(rc.repo, rel))
	}
	writeJSON(w, r, http.StatusOK, out)
}

func (f *Forge) getLatestRelease(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	for _, rel := range releasesSorted(rc.repo, false) {
		if !rel.Prerelease {
			writeJSON(w, r, http.StatusOK, f.releaseObject(rc.repo, rel))
			return
		}
	}
	notFound(w)
}

func (f *Forge) getReleaseByTag(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	tag := mux.Vars(r)["tag"]
	for _, rel := range releasesSorted(rc.repo, false) {
		if rel.TagName == tag {
			writeJSON(w, r, http.StatusOK, f.releaseObject(rc.repo, rel))
			return
		}
	}
	notFound(w)
}

// releaseByVar finds {id}, hiding drafts from those who may not see them.
func (f *Forge) releaseByVar(rc *reqCtx) (*Release, bool) {
	id, ok := rc.intVar("id")
	if !ok {
		return nil, false
	}
	rc.repo.mu.Lock()
	rel, found := rc.repo.Releases[id]
	draft := found && rel.Draft
	rc.repo.mu.Unlock()
	if !found || draft && !f.canSeeDrafts(rc.caller, rc.repo) {
		notFound(rc.w)
		return nil, false
	}
	return rel, true
}

func (f *Forge) getRelease(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, ok := f.readRelease(rc)
	if !ok {
		return
	}
	writeJSON(w, r, http.StatusOK, f.releaseObject(rc.repo, rel))
}

// readRelease resolves {id} and copies the release.
func (f *Forge) readRelease(rc *reqCtx) (Release, bool) {
	rel, ok := f.releaseByVar(rc)
	if !ok {
		return Release{}, false
	}
	rc.repo.mu.Lock()
	cp := *rel
	rc.repo.mu.Unlock()
	return cp, true
}

// validTagName is git's rule for ref names, applied to refs/tags/<tag>.
func (f *Forge) validTagName(repo *Repo, tag string) bool {
	if tag == "" || strings.HasPrefix(tag, "-") {
		return false
	}
	_, err := f.git.run(repo.Path, nil, "check-ref-format", "refs/tags/"+tag)
	return err == nil
}

// releaseTarget resolves target_commitish ("" = the default branch): a
// branch name or a commit sha.
func (f *Forge) releaseTarget(repo *Repo, target string) (string, bool) {
	if target == "" {
		target = repo.DefaultBranch
	}
	if sha40Pattern.MatchString(target) {
		if t, err := f.git.objectType(repo.Path, target); err == nil && t == "commit" {
			return target, true
		}
		return "", false
	}
	sha, err := f.git.resolve(repo.Path, "refs/heads/"+strings.TrimPrefix(target, "refs/heads/")+"^{commit}")
	return sha, err == nil
}

var errReleaseExists = errors.New("release exists")

func (f *Forge) createRelease(w http.ResponseWriter, r *http.Request, rc *reqCtx, req releaseRequest) {
	if req.TagName == nil || *req.TagName == "" {
		validationFailed(w, "Release", "tag_name", "missing_field", "")
		return
	}
	tag := *req.TagName
	if !f.validTagName(rc.repo, tag) {
		validationFailed(w, "Release", "tag_name", "invalid", "tag_name is not a valid tag")
		return
	}
	if req.Body != nil && utf8.RuneCountInString(*req.Body) > maxReleaseBody {
		validationFailed(w, "Release", "body", "invalid", "body is too long (maximum is 125000 characters)")
		return
	}
	draft := req.Draft != nil && *req.Draft
	rel := &Release{TagName: tag, Draft: draft, Prerelease: req.Prerelease != nil && *req.Prerelease,
		Author: rc.actor(), Target: rc.repo.DefaultBranch}
	if req.TargetCommitish != nil && *req.TargetCommitish != "" {
		rel.Target = *req.TargetCommitish
	}
	if req.Name != nil {
		rel.Name = *req.Name
	}
	if req.Body != nil {
		rel.Body = *req.Body
	}
	created, status, err := f.storeRelease(rc.repo, rel, req.GenerateReleaseNotes != nil && *req.GenerateReleaseNotes, rc.actor())
	if err != nil {
		switch {
		case errors.Is(err, errReleaseExists):
			validationFailed(w, "Release", "tag_name", "already_exists", "")
		case status == http.StatusUnprocessableEntity:
			validationFailed(w, "Release", "target_commitish", "invalid", err.Error())
		default:
			writeError(w, http.StatusInternalServerError, err.Error())
		}
		return
	}
	writeJSON(w, r, http.StatusCreated, f.releaseObject(rc.repo, created))
}

// storeRelease records a new release: the tag is created at its target
// when absent (published releases only, as on GitHub), notes generated
// on request, and the App told (release created, then published and
// released/prereleased for a non-draft).
func (f *Forge) storeRelease(repo *Repo, rel *Release, generate bool, sender *Account) (Release, int, error) {
	repo.mu.Lock()
	for _, other := range repo.Releases {
		if other.TagName == rel.TagName && !other.Draft {
			repo.mu.Unlock()
			return Release{}, http.StatusUnprocessableEntity, errReleaseExists
		}
	}
	tagRef := "refs/tags/" + rel.TagName
	tagSHA, tagErr := f.git.resolve(repo.Path, tagRef+"^{commit}")
	var change *RefChange
	if tagErr != nil {
		target, ok := f.releaseTarget(repo, rel.Target)
		if !ok {
			repo.mu.Unlock()
			return Release{}, http.StatusUnprocessableEntity, fmt.Errorf("target_commitish %q names no branch or commit", rel.Target)
		}
		tagSHA = target
		if !rel.Draft {
			if err := f.git.updateRef(repo.Path, tagRef, target, zeroSHA); err != nil {
				repo.mu.Unlock()
				return Release{}, http.StatusInternalServerError, err
			}
			change = &RefChange{Ref: tagRef, Before: zeroSHA, After: target}
		}
	}
	if generate {
		name, notes := f.releaseNotes(repo, rel.TagName, tagSHA, "")
		if rel.Name == "" {
			rel.Name = name
		}
		if rel.Body != "" {
			rel.Body += "\n\n" + notes
		} else {
			rel.Body = notes
		}
	}
	now := f.now()
	rel.ID = f.newID()
	rel.CreatedAt = now
	if !rel.Draft {
		rel.PublishedAt = &now
	}
	repo.Releases[rel.ID] = rel
	cp := *rel
	if change != nil {
		repo.PushedAt = now
	}
	repo.mu.Unlock()

	if change != nil {
		f.refsChanged(repo, sender, []RefChange{*change})
	}
	f.emitRelease("created", repo, cp, sender, nil)
	if !cp.Draft {
		f.emitPublished(repo, cp, sender)
	}
	return cp, http.StatusCreated, nil
}

// emitPublished sends what GitHub sends when a release goes public:
// "published", then "released" (or "prereleased").
func (f *Forge) emitPublished(repo *Repo, rel Release, sender *Account) {
	f.emitRelease("published", repo, rel, sender, nil)
	if rel.Prerelease {
		f.emitRelease("prereleased", repo, rel, sender, nil)
	} else {
		f.emitRelease("released", repo, rel, sender, nil)
	}
}

func (f *Forge) editRelease(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, ok := f.releaseByVar(rc)
	if !ok {
		return
	}
	req, ok := decode[releaseRequest](rc)
	if !ok {
		return
	}
	if req.TagName != nil && !f.validTagName(rc.repo, *req.TagName) {
		validationFailed(w, "Release", "tag_name", "invalid", "tag_name is not a valid tag")
		return
	}
	if req.Body != nil && utf8.RuneCountInString(*req.Body) > maxReleaseBody {
		validationFailed(w, "Release", "body", "invalid", "body is too long (maximum is 125000 characters)")
		return
	}
	rc.repo.mu.Lock()
	changes := map[string]any{}
	if req.TagName != nil && *req.TagName != rel.TagName {
		for _, other := range rc.repo.Releases {
			if other.ID != rel.ID && other.TagName == *req.TagName && !other.Draft {
				rc.repo.mu.Unlock()
				validationFailed(w, "Release", "tag_name", "already_exists", "")
				return
			}
		}
		changes["tag_name"] = map[string]any{"from": rel.TagName}
		rel.TagName = *req.TagName
	}
	if req.TargetCommitish != nil && *req.TargetCommitish != "" {
		rel.Target = *req.TargetCommitish
	}
	if req.Name != nil && *req.Name != rel.Name {
		changes["name"] = map[string]any{"from": rel.Name}
		rel.Name = *req.Name
	}
	if req.Body != nil && *req.Body != rel.Body {
		changes["body"] = map[string]any{"from": rel.Body}
		rel.Body = *req.Body
	}
	if req.Prerelease != nil {
		rel.Prerelease = *req.Prerelease
	}
	publish := req.Draft != nil && !*req.Draft && rel.Draft
	var change *RefChange
	if publish {
		tagRef := "refs/tags/" + rel.TagName
		if _, err := f.git.resolve(rc.repo.Path, tagRef+"^{commit}"); err != nil {
			target, ok := f.releaseTarget(rc.repo, rel.Target)
			if !ok {
				rc.repo.mu.Unlock()
				validationFailed(w, "Release", "target_commitish", "invalid", "target_commitish names no branch or commit")
				return
			}
			if err := f.git.updateRef(rc.repo.Path, tagRef, target, zeroSHA); err != nil {
				rc.repo.mu.Unlock()
				writeError(w, http.StatusInternalServerError, err.Error())
				return
			}
			change = &RefChange{Ref: tagRef, Before: zeroSHA, After: target}
		}
		now := f.now()
		rel.Draft = false
		rel.PublishedAt = &now
	} else if req.Draft != nil && *req.Draft && !rel.Draft {
		rel.Draft = true
		rel.PublishedAt = nil
	}
	cp := *rel
	rc.repo.mu.Unlock()

	if change != nil {
		f.refsChanged(rc.repo, rc.actor(), []RefChange{*change})
	}
	if publish {
		f.emitPublished(rc.repo, cp, rc.actor())
	} else {
		f.emitRelease("edited", rc.repo, cp, rc.actor(), changes)
	}
	writeJSON(w, r, http.StatusOK, f.releaseObject(rc.repo, cp))
}

func (f *Forge) deleteRelease(w http.ResponseWriter, r *http.Request, rc *reqCtx) {
	rel, ok := f.releaseByVar(rc)
	if !ok {
		return
	}
	rc.repo.mu.Lock()
	cp := *rel
	delete(rc.repo.Releases, rel.ID)
	rc.repo.mu.Unlock()
	f.emitRelease("deleted", rc.repo, cp, rc.actor(), nil)
	noContent(w)
}

// generateNotes is POST /releases/generate-notes: {name, body}.
func (f *Forge) generateNotes(w http.ResponseWriter, r *http.Request, rc *reqCtx, req struct {
	TagName         string `json:"tag_name"`
	TargetCommitish string `json:"target_commitish"`
	PreviousTagName string `json:"previous_tag_name"`
}) {
	if req.TagName == "" {
		validationFailed(w, "Release", "tag_name", "missing_field", "")
		return
	}
	sha, err := f.git.resolve(rc.repo.Path, "refs/tags/"+req.TagName+"^{commit}")
	if err != nil {
		var ok bool
		if sha, ok = f.releaseTarget(rc.repo, req.TargetCommitish); !ok {
			validationFailed(w, "Release", "target_commitish", "invalid", "target_commitish names no branch or commit")
			return
		}
	}
	if req.PreviousTagName != "" {
		if _, err := f.git.resolve(rc.repo.Path, "refs/tags/"+req.PreviousTagName+"^{commit}"); err != nil {
			validationFailed(w, "Release", "previous_tag_name", "invalid", "previous_tag_name names no tag")
			return
		}
	}
	name, body := f.releaseNotes(rc.repo, req.TagName, sha, req.PreviousTagName)
	writeJSON(w, r, http.StatusOK, map[string]any{"name": name, "body": body})
}

// releaseNotes are simple generated notes: the commits since the
// previous tag of the same family (for "network/upf/v3", the nearest
// "network/upf/*" tag behind it), each with its author, and a compare
// link. The name is the tag.
func (f *Forge) releaseNotes(repo *Repo, tag, sha, prev string) (name, body string) {
	if prev == "" {
		prev = f.previousTag(repo, tag, sha)
	}
	rangeArg := sha
	if prev != "" {
		rangeArg = "refs/tags/" + prev + ".." + sha
	}
	out, _ := f.git.run(repo.Path, nil, "log", "--max-count=250", "--format=%H%x00%an%x00%s", rangeArg, "--")
	var b strings.Builder
	b.WriteString("## What's Changed\n")
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		parts := strings.SplitN(line, "\x00", 3)
		if len(parts) != 3 {
			continue
		}
		n++
		fmt.Fprintf(&b, "* %s by @%s in %s\n", parts[2], parts[1], parts[0][:7])
	}
	if n == 0 {
		b.WriteString("* No changes\n")
	}
	web := f.webBase() + "/" + repo.FullName()
	if prev != "" {
		fmt.Fprintf(&b, "\n**Full Changelog**: %s/compare/%s...%s\n", web, prev, tag)
	} else {
		fmt.Fprintf(&b, "\n**Full Changelog**: %s/commits/%s\n", web, tag)
	}
	return tag, b.String()
}

// previousTag is the nearest tag behind sha of tag's family: same
// directory prefix for "dir/name" tags, slash-free tags otherwise.
func (f *Forge) previousTag(repo *Repo, tag, sha string) string {
	args := []string{"describe", "--tags", "--abbrev=0", "--exclude", tag}
	if i := strings.LastIndex(tag, "/"); i >= 0 {
		args = append(args, "--match", tag[:i+1]+"*")
	} else {
		args = append(args, "--exclude", "*/*")
	}
	out, err := f.git.run(repo.Path, nil, append(args, sha)...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
