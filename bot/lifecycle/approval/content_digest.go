package approval

// The content digest of a package: what an approval is given on.
//
// A package's content digest at a commit is "sha256:<hex>" of the lines
// "<path>\x00<mode>\x00<blob id>\n", one per file of the package directory
// (subpackages included: they are part of their package), in git's tree
// order, where the blob id of every file named Kptfile is replaced by
// "kptfile:<sha256 hex>" of that Kptfile with status.conditions removed
// (and status itself when nothing else is left in it) as kyaml writes it
// back (so formatting kyaml normalises does not count). Readiness
// conditions are set by automation after review (Kptfile
// info.readinessGates); a commit that only changes them does not change
// what the package renders to, so it keeps approvals. Any other change
// changes the digest. A package absent at the commit
// (no directory, or no Kptfile in it) has the digest digestAbsent. A
// Kptfile larger than maxDigestKptfile, or one that does not parse, is
// hashed as it is.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/bot/lifecycle/core"
	"github.com/porchbot/porchbot/internal/packages"
)

// maxDigestKptfile bounds the Kptfile read to strip its conditions.
const maxDigestKptfile = 1 << 20

// contentDigest is the content digest of the package in dir at commit h.
func contentDigest(w *core.LandingWalker, h plumbing.Hash, dir string) (string, error) {
	st, err := w.State(h, dir)
	if err != nil {
		return "", err
	}
	if !st.Exists() {
		return digestAbsent, nil
	}
	t, err := object.GetTree(w.Storer, st.Tree)
	if err != nil {
		return "", fmt.Errorf("tree %s at %s: %w", dir, h, err)
	}
	sum := sha256.New()
	var walk func(t *object.Tree, prefix string) error
	walk = func(t *object.Tree, prefix string) error {
		if err := w.Ctx.Err(); err != nil {
			return err
		}
		for _, e := range t.Entries {
			p := path.Join(prefix, e.Name)
			if e.Mode == filemode.Dir {
				sub, err := object.GetTree(w.Storer, e.Hash)
				if err != nil {
					return fmt.Errorf("tree %s: %w", p, err)
				}
				if err := walk(sub, p); err != nil {
					return err
				}
				continue
			}
			id := e.Hash.String()
			if e.Name == packages.KptfileName && e.Mode.IsFile() {
				if id, err = kptfileDigest(w, e.Hash); err != nil {
					return fmt.Errorf("%s: %w", p, err)
				}
			}
			fmt.Fprintf(sum, "%s\x00%s\x00%s\n", p, e.Mode, id)
		}
		return nil
	}
	if err := walk(t, ""); err != nil {
		return "", fmt.Errorf("content digest of %s at %s: %w", dir, h, err)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil)), nil
}

// kptfileDigest is "kptfile:<sha256>" of the Kptfile blob without its
// status.conditions.
func kptfileDigest(w *core.LandingWalker, blob plumbing.Hash) (string, error) {
	b, err := object.GetBlob(w.Storer, blob)
	if err != nil {
		return "", fmt.Errorf("blob %s: %w", blob, err)
	}
	r, err := b.Reader()
	if err != nil {
		return "", fmt.Errorf("blob %s: %w", blob, err)
	}
	defer func() { _ = r.Close() }()
	data, err := io.ReadAll(io.LimitReader(r, maxDigestKptfile+1))
	if err != nil {
		return "", fmt.Errorf("blob %s: %w", blob, err)
	}
	sum := sha256.Sum256(withoutConditions(data))
	return "kptfile:" + hex.EncodeToString(sum[:]), nil
}

// withoutConditions is a Kptfile without status.conditions (and without
// status when that leaves it empty), as kyaml writes it back; data itself
// when it is too large, is not exactly one YAML document, or does not
// parse. Every Kptfile that parses is written back, with conditions or
// without, so that the two compare.
func withoutConditions(data []byte) []byte {
	if len(data) > maxDigestKptfile || !singleDocument(data) {
		return data
	}
	node, err := yaml.Parse(string(data))
	if err != nil {
		return data
	}
	if status := node.Field("status"); status != nil && status.Value != nil && status.Value.Field("conditions") != nil {
		if _, err := status.Value.Pipe(yaml.Clear("conditions")); err != nil {
			return data
		}
		if len(status.Value.Content()) == 0 {
			if _, err := node.Pipe(yaml.Clear("status")); err != nil {
				return data
			}
		}
	}
	out, err := node.String()
	if err != nil {
		return data
	}
	return []byte(out)
}

// singleDocument reports that data holds exactly one YAML document (a
// second one must not hide behind the first).
func singleDocument(data []byte) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var first, second yaml.Node
	if err := dec.Decode(&first); err != nil {
		return false
	}
	return errors.Is(dec.Decode(&second), io.EOF)
}
