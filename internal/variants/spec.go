package variants

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/porchbot/porchbot/internal/config"
	"github.com/porchbot/porchbot/internal/kptfile"
)

// specInput is what SpecDigest covers: every mutation a variant applies to
// one target's downstream package (json.Marshal sorts map keys, so equal
// mutations give equal bytes).
type specInput struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
	Pipeline    kptfile.Pipeline  `json:"pipeline"`
	Injectors   []string          `json:"injectors,omitempty"`
}

// SpecDigest is the digest of the mutations v applies to its downstream
// package in repo ("sha256:" and the first 16 hex digits): a different
// digest on a downstream package means the entry's labels, annotations,
// namespace, pipeline or injectors changed since the package was made or
// last updated, and the package is refreshed.
func SpecDigest(v config.Variant, repo config.Repository) (string, error) {
	ns, err := v.DownstreamNamespace(repo)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(specInput{Labels: v.Labels, Annotations: v.Annotations, Namespace: ns, Pipeline: v.Pipeline, Injectors: v.Injectors})
	if err != nil {
		return "", fmt.Errorf("variant spec: %w", err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8]), nil
}
