package update

import (
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/kptfile"
)

// commentLocal gives the local tree its merge comments, as kpt does before
// it merges. When the update is a resource merge of a package without
// local subpackages, every KRM file of local goes through the resource
// merge, which adds the comments as it reads them (localAtRead): the tree
// is then not written and read once more. Otherwise (another strategy,
// files the merge would not read) the whole tree is commented first.
func (m *merger) commentLocal(kf *kptfile.Kptfile) error {
	strategy := ""
	if kf.Upstream != nil {
		strategy = kf.Upstream.UpdateStrategy
	}
	all, err := m.local.walk()
	if err != nil {
		return err
	}
	if (strategy == "" || strategy == kptfile.ResourceMerge) && len(m.local.packageDirs(all)) == 0 {
		m.localAtRead = true
		return nil
	}
	return commentTree(m.local)
}

// commentingReader adds the merge comments to what it reads.
type commentingReader struct{ r kio.Reader }

func (c commentingReader) Read() ([]*yaml.RNode, error) {
	nodes, err := c.r.Read()
	if err != nil {
		return nil, err
	}
	return addMergeComments(nodes)
}
