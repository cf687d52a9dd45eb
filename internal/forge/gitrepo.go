package forge

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// gitCLI runs the real git on the forge's bare repositories. The forge
// keeps git's own formats and locking by letting git do every write.
type gitCLI struct{ bin string }

// zeroSHA is git's "no object".
const zeroSHA = "0000000000000000000000000000000000000000"

var (
	errRefConflict = errors.New("reference does not have the expected value")
	errNoObject    = errors.New("no such object")
)

// run runs git in dir with stdin, returning stdout; stderr is in the error.
func (g *gitCLI) run(dir string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(g.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=forge", "GIT_AUTHOR_EMAIL=forge@forge.local",
		"GIT_COMMITTER_NAME=forge", "GIT_COMMITTER_EMAIL=forge@forge.local")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

// runEnv is run with extra environment (author and committer identity).
func (g *gitCLI) runEnv(dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	cmd := exec.Command(g.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_CONFIG_NOSYSTEM=1"), env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.Bytes(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.Bytes(), nil
}

func (g *gitCLI) initBare(path, defaultBranch string) error {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if _, err := g.run(path, nil, "init", "--quiet", "--bare", "--initial-branch="+defaultBranch); err != nil {
		return err
	}
	for _, kv := range [][2]string{{"http.receivepack", "true"}, {"receive.denyDeletes", "false"},
		{"receive.denyNonFastForwards", "false"}, {"core.logAllRefUpdates", "false"},
		{"uploadpack.allowAnySHA1InWant", "true"}} {
		if _, err := g.run(path, nil, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

// refs lists every ref of the repository: full name -> object id.
func (g *gitCLI) refs(path string) (map[string]string, error) {
	out, err := g.run(path, nil, "for-each-ref", "--format=%(objectname) %(refname)")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if sha, name, ok := strings.Cut(line, " "); ok {
			m[name] = sha
		}
	}
	return m, nil
}

// resolve returns the object id a revision names, or errNoObject.
func (g *gitCLI) resolve(path, rev string) (string, error) {
	out, err := g.run(path, nil, "rev-parse", "--verify", "--quiet", rev)
	if err != nil {
		return "", fmt.Errorf("%w: %s", errNoObject, rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// updateRef sets ref to newSHA if it is at oldSHA now ("" = any value,
// zeroSHA = must not exist). errRefConflict when it is not.
func (g *gitCLI) updateRef(path, ref, newSHA, oldSHA string) error {
	args := []string{"update-ref", ref, newSHA}
	if oldSHA != "" {
		args = append(args, oldSHA)
	}
	if _, err := g.run(path, nil, args...); err != nil {
		if strings.Contains(err.Error(), "but expected") || strings.Contains(err.Error(), "already exists") ||
			strings.Contains(err.Error(), "cannot lock ref") {
			return fmt.Errorf("%w: %s", errRefConflict, ref)
		}
		return err
	}
	return nil
}

// deleteRef removes ref (if at oldSHA, when given).
func (g *gitCLI) deleteRef(path, ref, oldSHA string) error {
	args := []string{"update-ref", "-d", ref}
	if oldSHA != "" {
		args = append(args, oldSHA)
	}
	if _, err := g.run(path, nil, args...); err != nil {
		if strings.Contains(err.Error(), "but expected") || strings.Contains(err.Error(), "cannot lock ref") {
			return fmt.Errorf("%w: %s", errRefConflict, ref)
		}
		return err
	}
	return nil
}

// objectType is "blob", "tree", "commit" or "tag"; errNoObject if absent.
func (g *gitCLI) objectType(path, sha string) (string, error) {
	out, err := g.run(path, nil, "cat-file", "-t", sha)
	if err != nil {
		return "", fmt.Errorf("%w: %s", errNoObject, sha)
	}
	return strings.TrimSpace(string(out)), nil
}

// readObject returns an object's raw content.
func (g *gitCLI) readObject(path, typ, sha string) ([]byte, error) {
	out, err := g.run(path, nil, "cat-file", typ, sha)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", errNoObject, sha)
	}
	return out, nil
}

// writeObject stores raw content as an object of typ and returns its id.
func (g *gitCLI) writeObject(path, typ string, content []byte) (string, error) {
	out, err := g.run(path, content, "hash-object", "-w", "-t", typ, "--stdin")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// isAncestor reports whether a is an ancestor of (or equal to) b.
func (g *gitCLI) isAncestor(path, a, b string) bool {
	_, err := g.run(path, nil, "merge-base", "--is-ancestor", a, b)
	return err == nil
}
