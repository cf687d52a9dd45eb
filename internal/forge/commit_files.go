package forge

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Signature is an author or committer of a commit the forge makes.
type Signature struct {
	Name  string
	Email string
	When  time.Time
}

// commitFiles makes a commit whose tree is exactly files (path -> content)
// on top of parent ("" for a root commit) and returns its id. Paths are
// slash-separated; an executable bit is never set.
func (g *gitCLI) commitFiles(repoPath string, files map[string][]byte, parent, message string, author, committer Signature) (string, error) {
	idx, err := os.CreateTemp("", "forge-index-*")
	if err != nil {
		return "", fmt.Errorf("temp index: %w", err)
	}
	idxPath := idx.Name()
	_ = idx.Close()
	_ = os.Remove(idxPath)
	defer os.Remove(idxPath)
	env := []string{"GIT_INDEX_FILE=" + idxPath}

	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var info strings.Builder
	for _, p := range paths {
		sha, err := g.writeObject(repoPath, "blob", files[p])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&info, "100644 %s\t%s\n", sha, p)
	}
	if _, err := g.runEnv(repoPath, env, nil, "read-tree", "--empty"); err != nil {
		return "", err
	}
	if _, err := g.runEnv(repoPath, env, []byte(info.String()), "update-index", "--add", "--index-info"); err != nil {
		return "", err
	}
	out, err := g.runEnv(repoPath, env, nil, "write-tree")
	if err != nil {
		return "", err
	}
	tree := strings.TrimSpace(string(out))
	return g.commitTree(repoPath, tree, []string{parent}, message, author, committer)
}

// commitTree makes a commit of tree with the given parents (empty strings
// skipped).
func (g *gitCLI) commitTree(repoPath, tree string, parents []string, message string, author, committer Signature) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		if p != "" {
			args = append(args, "-p", p)
		}
	}
	env := []string{
		"GIT_AUTHOR_NAME=" + author.Name, "GIT_AUTHOR_EMAIL=" + author.Email,
		"GIT_AUTHOR_DATE=" + gitDate(author.When),
		"GIT_COMMITTER_NAME=" + committer.Name, "GIT_COMMITTER_EMAIL=" + committer.Email,
		"GIT_COMMITTER_DATE=" + gitDate(committer.When),
	}
	out, err := g.runEnv(repoPath, env, []byte(message), args...)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

func gitDate(t time.Time) string {
	if t.IsZero() {
		t = time.Now()
	}
	return fmt.Sprintf("%d +0000", t.Unix())
}

// readDirFiles reads every regular file under dir (skipping .git) as
// slash-separated relative paths.
func readDirFiles(dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", dir, err)
	}
	return files, nil
}

// signatureOf is the git identity of an account.
func signatureOf(a *Account, when time.Time) Signature {
	return Signature{Name: a.Login, Email: a.Email, When: when}
}

// CommitFiles commits files (the whole tree) on top of branch (created if
// absent) in repository fullName, authored by author, and returns the new
// commit id. It sends no webhook: it is for seeding and test set-up.
func (f *Forge) CommitFiles(fullName, branch string, files map[string][]byte, message string, author *Account) (string, error) {
	repo, err := f.repoNamed(fullName)
	if err != nil {
		return "", err
	}
	repo.mu.Lock()
	defer repo.mu.Unlock()
	ref := "refs/heads/" + branch
	parent, _ := f.git.resolve(repo.Path, ref)
	sig := signatureOf(author, f.now())
	sha, err := f.git.commitFiles(repo.Path, files, parent, message, sig, sig)
	if err != nil {
		return "", fmt.Errorf("forge: commit to %s %s: %w", fullName, branch, err)
	}
	old := parent
	if old == "" {
		old = zeroSHA
	}
	if err := f.git.updateRef(repo.Path, ref, sha, old); err != nil {
		return "", fmt.Errorf("forge: update %s %s: %w", fullName, ref, err)
	}
	repo.PushedAt = f.now()
	return sha, nil
}
