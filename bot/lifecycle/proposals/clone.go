package proposals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/resid"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/gitstore"
	"github.com/porchbot/porchbot/internal/kptfile"
	"github.com/porchbot/porchbot/internal/mdquote"
	"github.com/porchbot/porchbot/internal/packages"
)

// CloneSource is where a clone comes from, on the bot's own GitHub: a
// published revision of a package (owner/repo/<package>@v<N>), or any
// directory at any ref of a repository (a git URL,
// https://host/owner/repo.git/<dir>@<ref>).
type CloneSource struct {
	Owner, Repo string
	// Package and Revision: the owner/repo/<package>@v<N> form.
	Package  string
	Revision int
	// URL is set for the git URL form, with Directory (no leading slash,
	// "" for the repository root) and Ref ("" for the default branch).
	URL       bool
	Directory string
	Ref       string
}

// String is the source as it is written.
func (c CloneSource) String() string {
	if !c.URL {
		return fmt.Sprintf("%s/%s/%s@v%d", c.Owner, c.Repo, c.Package, c.Revision)
	}
	s := c.Owner + "/" + c.Repo + ".git"
	if c.Directory != "" {
		s += "/" + c.Directory
	}
	if c.Ref != "" {
		s += "@" + c.Ref
	}
	return s
}

// gitSuffix splits a kpt package URL at its ".git" (as kpt does).
var gitSuffix = regexp.MustCompile(`\.git($|/)`)

// ParseCloneSource reads a clone source: owner/repo/<package>@v<N>, or a
// git URL https://host/owner/repo.git/<dir>@<ref> (kpt pkg get's form)
// whose scheme and host are those of web, the bot's GitHub web base URL
// (https://github.com/ or a GitHub Enterprise Server's). Other hosts are
// refused: the bot reads only repositories where it is installed. Errors
// are *RequestError.
func ParseCloneSource(src, web string) (CloneSource, error) {
	src = strings.TrimSpace(src)
	if src == "" {
		return CloneSource{}, core.RequestErrorf("the clone source is missing: owner/repo/<package>@v<N> or https://host/owner/repo.git/<dir>@<ref>")
	}
	if strings.Contains(src, "://") {
		return parseCloneURL(src, web)
	}
	left, rev, found := cutLast(src, "@")
	if !found {
		return CloneSource{}, core.RequestErrorf("clone source %s: give the revision, as owner/repo/<package>@v<N>", mdquote.Code(src))
	}
	n, ok := packages.ParseRevision(rev)
	if !ok {
		return CloneSource{}, core.RequestErrorf("clone source %s: %s is not a revision (v1, v2, …)", mdquote.Code(src), mdquote.Code(rev))
	}
	parts := strings.SplitN(left, "/", 3)
	if len(parts) < 3 {
		return CloneSource{}, core.RequestErrorf("clone source %s: write it owner/repo/<package>@v<N>", mdquote.Code(src))
	}
	if err := CheckRepoName(parts[0], parts[1]); err != nil {
		return CloneSource{}, err
	}
	if err := packages.ValidateName(parts[2]); err != nil {
		return CloneSource{}, core.RequestErrorf("clone source %s: %v", mdquote.Code(src), err)
	}
	return CloneSource{Owner: parts[0], Repo: parts[1], Package: parts[2], Revision: n}, nil
}

func parseCloneURL(src, web string) (CloneSource, error) {
	bad := func(format string, a ...any) (CloneSource, error) {
		return CloneSource{}, core.RequestErrorf("clone source %s: "+format, append([]any{mdquote.Code(src)}, a...)...)
	}
	u, err := url.Parse(src)
	if err != nil {
		return bad("not a URL: %v", err)
	}
	base, err := url.Parse(web)
	if err != nil || base.Host == "" {
		return bad("the bot's GitHub URL %q is not configured", web)
	}
	switch {
	case u.User != nil:
		return bad("credentials do not belong in the URL")
	case u.RawQuery != "" || u.Fragment != "":
		return bad("a query or fragment is not part of a package URL")
	case !strings.EqualFold(u.Scheme, base.Scheme) || !strings.EqualFold(u.Host, base.Host):
		return bad("porchbot clones only from repositories on %s://%s where it is installed", base.Scheme, base.Host)
	}
	prefix := strings.TrimSuffix(base.Path, "/") + "/"
	rest, ok := strings.CutPrefix(u.Path, prefix)
	if !ok {
		return bad("porchbot clones only from repositories under %s", web)
	}
	var repoPart, tail string
	if loc := gitSuffix.FindStringIndex(rest); loc != nil {
		repoPart, tail = rest[:loc[0]], rest[loc[1]:]
	} else {
		// Without ".git", only owner/repo[@ref] is unambiguous.
		repoPart, tail = rest, ""
		if r, ref, found := cutLast(rest, "@"); found {
			repoPart, tail = r, "@"+ref
		}
		repoPart = strings.TrimSuffix(repoPart, ".git")
		if strings.Count(repoPart, "/") != 1 {
			return bad("write it https://host/owner/repo.git/<dir>@<ref>")
		}
	}
	owner, repo, found := strings.Cut(repoPart, "/")
	if !found || strings.Contains(repo, "/") {
		return bad("the repository must be owner/repo")
	}
	if err := CheckRepoName(owner, repo); err != nil {
		return CloneSource{}, err
	}
	dir, ref := tail, ""
	if i := strings.Index(tail, "@"); i >= 0 {
		dir, ref = tail[:i], strings.TrimSuffix(tail[i+1:], "/")
		if ref == "" {
			return bad("the ref after @ is empty")
		}
	}
	dir = strings.Trim(dir, "/")
	if dir != "" {
		if path.Clean(dir) != dir || strings.HasPrefix(dir, "../") || dir == ".." {
			return bad("the directory %s is not a clean path", mdquote.Code(dir))
		}
	}
	return CloneSource{Owner: owner, Repo: repo, URL: true, Directory: dir, Ref: ref}, nil
}

func CheckRepoName(owner, repo string) error {
	valid := func(s string, extra string) bool {
		if s == "" || len(s) > 100 || s == "." || s == ".." {
			return false
		}
		for _, r := range s {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune(extra, r)) {
				return false
			}
		}
		return true
	}
	if !valid(owner, "-") || !valid(repo, "-_.") {
		return core.RequestErrorf("%s is not a GitHub repository name (owner/repo)", mdquote.Code(owner+"/"+repo))
	}
	return nil
}

func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// RepoOpener opens a Session on another repository of the bot's GitHub.
// It decides who may read what: it is where the caller checks that the App
// is installed there and that the person asking may read the repository.
// Its errors are shown to them when they are *RequestError.
type RepoOpener func(ctx context.Context, owner, repo string) (*core.Session, error)

// CloneRequest asks for a new package cloned from an upstream.
type CloneRequest struct {
	Source CloneSource
	// Package is the new package's name in this repository.
	Package string
	// Workspace is the draft's workspace; "" means DefaultInitWorkspace.
	Workspace string
	// RequestedBy is the login named in the commit message, if any.
	RequestedBy string
}

// Clone creates the draft of a new package cloned from req.Source, as
// `kpt pkg get <repo>.git/<dir>@<ref> <package>` writes it: the upstream
// tree, its Kptfile renamed to the package's last segment with upstream
// {type: git, git: {repo, directory, ref}, updateStrategy: resource-merge}
// and upstreamLock {type: git, git: {repo, directory, ref, commit}}, and
// kpt's merge comments ("# kpt-merge: ns/name" and the
// internal.kpt.dev/upstream-identifier annotation) on every resource. repo
// is the source's clone URL without ".git", as kpt records it. The commit
// carries Porch's trailer (task clone).
//
// A source in this repository is read from the session; another repository
// is opened with open. The same checks as NewDraft apply to the package.
func Clone(ctx context.Context, s *core.Session, req CloneRequest, open RepoOpener) (*Draft, error) {
	d, err := startNewPackageDraft(ctx, s, req.Package, req.Workspace)
	if err != nil {
		return nil, err
	}
	src := s
	if !strings.EqualFold(req.Source.Owner+"/"+req.Source.Repo, s.Repo.FullName()) {
		if open == nil {
			return nil, core.RequestErrorf("cloning from another repository is not available here")
		}
		if src, err = open(ctx, req.Source.Owner, req.Source.Repo); err != nil {
			return nil, err
		}
	}
	up, err := resolveCloneSource(ctx, src, req.Source)
	if err != nil {
		return nil, err
	}
	files, err := src.Git.ReadTree(ctx, up.commit, up.dir)
	if err != nil {
		if errors.Is(err, gitstore.ErrNotFound) {
			return nil, core.RequestErrorf("%s has no directory %s at %s", src.Repo.FullName(), mdquote.Code(displayRepoDir(up.dir)), mdquote.Code(up.ref))
		}
		return nil, err
	}
	kf, ok := files[kptfile.FileName]
	if !ok {
		return nil, core.RequestErrorf("%s at %s is not a kpt package (no Kptfile)", mdquote.Code(displayRepoDir(up.dir)), mdquote.Code(up.ref))
	}
	lock := kptfile.GitLock{Repo: strings.TrimSuffix(src.Git.URL(), ".git"), Directory: "/" + up.dir, Ref: up.ref, Commit: up.commit.String()}
	if files[kptfile.FileName], err = ClonedKptfile(kf, path.Base(req.Package), lock); err != nil {
		return nil, core.RequestErrorf("the upstream Kptfile of %s: %v", mdquote.Code(req.Source.String()), err)
	}
	files = AddKptMergeComments(files)

	d.Task, d.Source, d.SourceCommit = packages.TaskClone, fmt.Sprintf("%s%s@%s", lock.Repo, lock.Directory, lock.Ref), up.commit
	spec, _ := json.Marshal(map[string]any{"upstreamRef": map[string]any{"type": kptfile.OriginGit,
		"git": map[string]string{"repo": lock.Repo, "ref": lock.Ref, "directory": lock.Directory}}})
	msg := fmt.Sprintf("Clone %s\n\nNew package %s cloned from %s (%s), draft %s.", d.Package, d.Package, d.Source, up.commit, d.Workspace)
	if err := commitDraft(ctx, s, d, files, msg+requestedBy(req.RequestedBy), &packages.Task{Type: packages.TaskClone, Spec: spec}); err != nil {
		return nil, err
	}
	return d, nil
}

// resolvedUpstream is a clone source resolved in its repository's cache.
type resolvedUpstream struct {
	dir    string // repository path, "" for the root
	ref    string // as recorded in upstream.git.ref
	commit plumbing.Hash
}

func resolveCloneSource(ctx context.Context, src *core.Session, cs CloneSource) (resolvedUpstream, error) {
	if !cs.URL {
		tag := packages.TagName(cs.Package, cs.Revision)
		h, err := src.RevisionCommit(ctx, cs.Package, cs.Revision)
		if err != nil {
			if errors.Is(err, core.ErrNotARevision) {
				return resolvedUpstream{}, src.NotRevisionRequest(cs.Package, cs.Revision, err)
			}
			if errors.Is(err, gitstore.ErrNotFound) {
				revs, _ := PublishedRevisions(ctx, src, cs.Package)
				if len(revs) == 0 {
					return resolvedUpstream{}, noSourceRevision(ctx, src, cs.Package)
				}
				return resolvedUpstream{}, core.RequestErrorf("%s has no revision `v%d` of %s (published: %s).", mdquote.Code(src.Repo.FullName()), cs.Revision, mdquote.Code(cs.Package), describeRevisions(revs))
			}
			return resolvedUpstream{}, err
		}
		return resolvedUpstream{dir: DraftPackageDir(src, cs.Package), ref: tag, commit: h}, nil
	}
	ref := cs.Ref
	if ref == "" {
		ref = src.Repo.DefaultBranch
		if ref == "" {
			ref = src.DeploymentBranch
		}
		if ref == "" {
			return resolvedUpstream{}, core.RequestErrorf("%s: give the ref (…@<ref>)", mdquote.Code(cs.String()))
		}
	}
	// git's order for a short name: tags before branches; then a full id.
	candidates := []string{"refs/tags/" + ref, "refs/heads/" + ref}
	if strings.HasPrefix(ref, "refs/") {
		candidates = []string{ref}
	} else if len(ref) == 40 && plumbing.IsHash(ref) {
		candidates = append(candidates, ref)
	}
	for _, c := range candidates {
		h, err := src.ResolveRef(ctx, c)
		if err == nil {
			return resolvedUpstream{dir: cs.Directory, ref: ref, commit: h}, nil
		}
		if !errors.Is(err, gitstore.ErrNotFound) {
			return resolvedUpstream{}, err
		}
	}
	return resolvedUpstream{}, core.RequestErrorf("%s has no tag, branch or commit %s", src.Repo.FullName(), mdquote.Code(ref))
}

func displayRepoDir(dir string) string {
	if dir == "" {
		return "/"
	}
	return dir
}

// ClonedKptfile is the upstream Kptfile as kpt pkg get leaves it: renamed,
// with upstream and upstreamLock set (kptfile keeps the rest as written).
func ClonedKptfile(data []byte, name string, lock kptfile.GitLock) ([]byte, error) {
	f, err := kptfile.Parse(data)
	if err != nil {
		return nil, err
	}
	if err := f.SetName(name); err != nil {
		return nil, err
	}
	if err := f.SetUpstream(&kptfile.Upstream{Type: kptfile.OriginGit,
		Git: &kptfile.Git{Repo: lock.Repo, Directory: lock.Directory, Ref: lock.Ref}, UpdateStrategy: kptfile.ResourceMerge}); err != nil {
		return nil, err
	}
	if err := f.SetUpstreamLock(&kptfile.UpstreamLock{Type: kptfile.OriginGit, Git: &lock}); err != nil {
		return nil, err
	}
	return f.Bytes()
}

// kpt's merge comment and upstream identifier (kpt's addmergecomment).
const (
	kptMergeCommentPrefix  = "kpt-merge:"
	kptUpstreamIdentifier  = "internal.kpt.dev/upstream-identifier"
	kptUnknownNamespace    = "~C"
	kptDefaultNamespace    = "default"
	kptMergePackageRootDir = "/pkg"
)

// AddKptMergeComments does what kpt pkg get does last: through kyaml, every
// resource in a *.yaml / *.yml file of the package (subpackages included)
// gets "# kpt-merge: <namespace>/<name>" on its metadata key (kept when
// one is there) and the annotation internal.kpt.dev/upstream-identifier
// "<group>|<kind>|<namespace or default>|<name>", and those files are
// written back by kyaml (sequence indentation kept). Like kpt it is best
// effort: if any file does not parse, every file stays as it was.
func AddKptMergeComments(files map[string][]byte) map[string][]byte {
	fs := filesys.MakeFsInMemory()
	for name, data := range files {
		p := path.Join(kptMergePackageRootDir, name)
		if err := fs.MkdirAll(path.Dir(p)); err != nil {
			return files
		}
		if err := fs.WriteFile(p, data); err != nil {
			return files
		}
	}
	rw := &kio.LocalPackageReadWriter{PackagePath: kptMergePackageRootDir, PreserveSeqIndent: true, WrapBareSeqNode: true,
		FileSystem: filesys.FileSystemOrOnDisk{FileSystem: fs}}
	err := kio.Pipeline{Inputs: []kio.Reader{rw}, Filters: []kio.Filter{kio.FilterAll(kyaml.FilterFunc(kptMergeComment))},
		Outputs: []kio.Writer{rw}}.Execute()
	if err != nil {
		return files
	}
	out := make(map[string][]byte, len(files))
	err = fs.Walk(kptMergePackageRootDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(kptMergePackageRootDir, p)
		if err != nil {
			return err
		}
		data, err := fs.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil || len(out) != len(files) {
		return files
	}
	return out
}

// kptMergeComment is kpt's AddMergeComment filter.
func kptMergeComment(object *kyaml.RNode) (*kyaml.RNode, error) {
	rm, err := object.GetMeta()
	if err != nil {
		return object, nil
	}
	if object.GetName() == "" && object.GetNamespace() == "" && len(object.GetLabels()) == 0 {
		return object, nil
	}
	mf := object.Field(kyaml.MetadataField)
	if mf == nil {
		return object, nil
	}
	if !strings.Contains(mf.Key.YNode().LineComment, kptMergeCommentPrefix) {
		mf.Key.YNode().LineComment = fmt.Sprintf("%s %s/%s", kptMergeCommentPrefix, rm.Namespace, rm.Name)
	}
	group, _ := resid.ParseGroupVersion(object.GetApiVersion())
	namespace, name := object.GetNamespace(), object.GetName()
	if nn := kptMergeNsAndName(mf.Key.YNode().LineComment); nn != nil {
		namespace, name = nn[0], nn[1]
	}
	if namespace == "" {
		namespace = kptDefaultNamespace
	} else if object.GetNamespace() == resid.TotallyNotANamespace {
		namespace = kptUnknownNamespace
	}
	_ = object.PipeE(kyaml.SetAnnotation(kptUpstreamIdentifier, fmt.Sprintf("%s|%s|%s|%s", group, object.GetKind(), namespace, name)))
	return object, nil
}

// kptMergeNsAndName reads "# kpt-merge: ns/name".
func kptMergeNsAndName(comment string) []string {
	c := strings.TrimSpace(strings.TrimPrefix(comment, "#"))
	if !strings.HasPrefix(c, kptMergeCommentPrefix) {
		return nil
	}
	nn := strings.SplitN(strings.TrimSpace(strings.TrimPrefix(c, kptMergeCommentPrefix)), "/", 2)
	if len(nn) != 2 {
		return nil
	}
	return nn
}
