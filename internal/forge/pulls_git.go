package forge

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Git questions about pull requests: merge bases, diff statistics,
// mergeability, changed files and commits. Answers depend only on object
// ids, so they are cached by (repository, base, head).

// exitCode is the exit status of a failed git command, -1 if it did not run.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// mergeBase is the best common ancestor of a and b ("" if none).
func (g *gitCLI) mergeBase(path, a, b string) (string, error) {
	out, err := g.run(path, nil, "merge-base", a, b)
	if err != nil {
		if exitCode(err) == 1 {
			return "", nil
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// mergeTree merges commits ours and theirs (3-way, with their merge base)
// without a work tree and returns the resulting tree; clean is false when
// there are conflicts (then conflicts names the files).
func (g *gitCLI) mergeTree(path, ours, theirs string) (tree string, clean bool, conflicts []string, err error) {
	out, err := g.run(path, nil, "merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs)
	if err != nil && exitCode(err) != 1 {
		return "", false, nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) == 0 || len(lines[0]) < 40 {
		return "", false, nil, fmt.Errorf("git merge-tree: unexpected output %q", out)
	}
	tree = lines[0]
	for _, l := range lines[1:] {
		if l == "" {
			break
		}
		conflicts = append(conflicts, l)
	}
	return tree, err == nil, conflicts, nil
}

// treeOf is the tree of a commit.
func (g *gitCLI) treeOf(path, commit string) (string, error) {
	return g.resolve(path, commit+"^{tree}")
}

// pullGitInfo is what a pull request object says about its commits.
type pullGitInfo struct {
	ok           bool
	commits      int
	additions    int
	deletions    int
	changedFiles int
	mergeable    bool
}

// pullGitCache caches pullGitInfo by "path\x00base\x00head".
var pullGitCache = struct {
	sync.Mutex
	m map[string]pullGitInfo
}{m: map[string]pullGitInfo{}}

// pullGit answers the git half of a pull request object for base..head.
func (f *Forge) pullGit(path, base, head string) pullGitInfo {
	if base == "" || head == "" {
		return pullGitInfo{}
	}
	key := path + "\x00" + base + "\x00" + head
	pullGitCache.Lock()
	info, ok := pullGitCache.m[key]
	pullGitCache.Unlock()
	if ok {
		return info
	}
	info = f.computePullGit(path, base, head)
	if !info.ok {
		return info
	}
	pullGitCache.Lock()
	if len(pullGitCache.m) > 20000 {
		pullGitCache.m = map[string]pullGitInfo{}
	}
	pullGitCache.m[key] = info
	pullGitCache.Unlock()
	return info
}

func (f *Forge) computePullGit(path, base, head string) pullGitInfo {
	var info pullGitInfo
	mb, err := f.git.mergeBase(path, base, head)
	if err != nil || mb == "" {
		return info
	}
	out, err := f.git.run(path, nil, "rev-list", "--count", base+".."+head)
	if err != nil {
		return info
	}
	info.commits, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	files, err := f.git.diffFiles(path, mb, head, false)
	if err != nil {
		return info
	}
	for _, fl := range files {
		info.additions += fl.additions
		info.deletions += fl.deletions
	}
	info.changedFiles = len(files)
	_, clean, ok := f.testMerge(path, base, head)
	if !ok {
		return info
	}
	info.mergeable = clean
	info.ok = true
	return info
}

// testMergeCache caches testMerge by "path\x00base\x00head".
var testMergeCache = struct {
	sync.Mutex
	m map[string]testMergeResult
}{m: map[string]testMergeResult{}}

type testMergeResult struct {
	sha   string
	clean bool
}

// testMerge is GitHub's test merge of a pull request: the merge commit of
// head into base (parents base, head) that merge_commit_sha names before
// the pull request is merged; clean is false (and sha "") on conflicts.
// The commit is made with fixed dates, so it is the same for the same
// base and head; no ref points at it.
func (f *Forge) testMerge(path, base, head string) (sha string, clean, ok bool) {
	key := path + "\x00" + base + "\x00" + head
	testMergeCache.Lock()
	res, hit := testMergeCache.m[key]
	testMergeCache.Unlock()
	if hit {
		return res.sha, res.clean, true
	}
	tree, clean, _, err := f.git.mergeTree(path, base, head)
	if err != nil {
		return "", false, false
	}
	if clean {
		sig := webFlow(time.Unix(1700000000, 0).UTC())
		if sha, err = f.git.commitTree(path, tree, []string{base, head}, "Merge "+head+" into "+base+"\n", sig, sig); err != nil {
			return "", false, false
		}
	}
	testMergeCache.Lock()
	if len(testMergeCache.m) > 20000 {
		testMergeCache.m = map[string]testMergeResult{}
	}
	testMergeCache.m[key] = testMergeResult{sha: sha, clean: clean}
	testMergeCache.Unlock()
	return sha, clean, true
}

// diffFile is one file changed between two commits.
type diffFile struct {
	status    string // GitHub's: added, removed, modified, renamed, copied, changed
	path      string
	oldPath   string // for renamed and copied
	sha       string // blob id (the new one; the old one for removed)
	additions int
	deletions int
	patch     string
}

// diffFiles lists the files changed from a to b (renames detected), with
// their patches when withPatch.
func (g *gitCLI) diffFiles(path, a, b string, withPatch bool) ([]diffFile, error) {
	raw, err := g.run(path, nil, "diff", "--no-ext-diff", "-M", "--raw", "-z", "--no-abbrev", a, b)
	if err != nil {
		return nil, err
	}
	var files []diffFile
	fields := strings.Split(string(raw), "\x00")
	for i := 0; i < len(fields); i++ {
		meta := fields[i]
		if !strings.HasPrefix(meta, ":") {
			continue
		}
		parts := strings.Fields(meta[1:])
		if len(parts) < 5 || i+1 >= len(fields) {
			return nil, fmt.Errorf("git diff --raw: unexpected %q", meta)
		}
		df := diffFile{sha: parts[3]}
		code := parts[4]
		switch code[0] {
		case 'A':
			df.status = "added"
		case 'D':
			df.status, df.sha = "removed", parts[2]
		case 'M':
			df.status = "modified"
		case 'R':
			df.status = "renamed"
		case 'C':
			df.status = "copied"
		default:
			df.status = "changed"
		}
		i++
		df.path = fields[i]
		if code[0] == 'R' || code[0] == 'C' {
			if i+1 >= len(fields) {
				return nil, fmt.Errorf("git diff --raw: truncated rename")
			}
			df.oldPath = df.path
			i++
			df.path = fields[i]
		}
		files = append(files, df)
	}
	num, err := g.run(path, nil, "diff", "--no-ext-diff", "-M", "--numstat", "-z", a, b)
	if err != nil {
		return nil, err
	}
	nf := strings.Split(string(num), "\x00")
	k := 0
	for i := 0; i < len(nf) && k < len(files); i++ {
		if nf[i] == "" {
			continue
		}
		cols := strings.SplitN(nf[i], "\t", 3)
		if len(cols) < 3 {
			continue
		}
		files[k].additions, _ = strconv.Atoi(cols[0]) // "-" for binary: 0
		files[k].deletions, _ = strconv.Atoi(cols[1])
		if cols[2] == "" { // rename: old and new paths follow
			i += 2
		}
		k++
	}
	if withPatch && len(files) > 0 {
		text, err := g.run(path, nil, "diff", "--no-ext-diff", "-M", "--no-color", a, b)
		if err != nil {
			return nil, err
		}
		sections := splitDiff(text)
		for i := range files {
			if i < len(sections) {
				files[i].patch = hunksOf(sections[i])
			}
		}
	}
	return files, nil
}

// splitDiff cuts a unified git diff into its per-file sections.
func splitDiff(text []byte) []string {
	var out []string
	var cur strings.Builder
	started := false
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if bytes.HasPrefix(line, []byte("diff --git ")) {
			if started {
				out = append(out, cur.String())
			}
			cur.Reset()
			started = true
		}
		cur.Write(line)
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}

// hunksOf keeps the hunks of a file's diff section, as GitHub's "patch".
func hunksOf(section string) string {
	i := strings.Index(section, "\n@@")
	if i < 0 {
		return ""
	}
	return strings.TrimSuffix(section[i+1:], "\n")
}

// gitCommit is a commit as git log reports it.
type gitCommit struct {
	sha, tree string
	parents   []string
	author    Signature
	committer Signature
	message   string
}

// logCommits lists the commits of a revision range, oldest first, at most
// limit (0: no limit).
func (g *gitCLI) logCommits(path string, limit int, revs ...string) ([]gitCommit, error) {
	return g.logCommitsTouching(path, limit, revs, nil)
}

// logCommitsTouching is logCommits limited to the commits that change one
// of paths (all commits when paths is empty).
func (g *gitCLI) logCommitsTouching(path string, limit int, revs, paths []string) ([]gitCommit, error) {
	args := []string{"log", "--reverse", "--topo-order", "--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct%x00%B%x1e"}
	args = append(args, revs...)
	args = append(args, "--")
	args = append(args, paths...)
	out, err := g.run(path, nil, args...)
	if err != nil {
		return nil, err
	}
	var cs []gitCommit
	for _, rec := range strings.Split(string(out), "\x1e") {
		rec = strings.TrimLeft(rec, "\n")
		if rec == "" {
			continue
		}
		p := strings.SplitN(rec, "\x00", 10)
		if len(p) < 10 {
			return nil, fmt.Errorf("git log: unexpected record %q", rec)
		}
		at, _ := strconv.ParseInt(p[5], 10, 64)
		ct, _ := strconv.ParseInt(p[8], 10, 64)
		c := gitCommit{sha: p[0], tree: p[1], parents: strings.Fields(p[2]),
			author:    Signature{Name: p[3], Email: p[4], When: time.Unix(at, 0).UTC()},
			committer: Signature{Name: p[6], Email: p[7], When: time.Unix(ct, 0).UTC()},
			message:   strings.TrimRight(p[9], "\n")}
		cs = append(cs, c)
	}
	if limit > 0 && len(cs) > limit {
		cs = cs[:limit]
	}
	return cs, nil
}
