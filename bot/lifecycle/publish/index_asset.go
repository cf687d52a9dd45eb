package publish

import (
	"context"

	"github.com/porchbot/porchbot/internal/hub"
	"github.com/porchbot/porchbot/internal/index"
)

// The package index as a release asset: every release a publish makes
// gets the index as it stands after that publish, index.yaml, so the
// release of <pkg>/vN carries the index that lists vN (docs/index.md).
// One REST call per release made: the upload to the release's upload URL.

// IndexAssetMediaType is the index asset's Content-Type.
const IndexAssetMediaType = "application/yaml"

// ReleaseAssets uploads a file to a release (a part of hub.API).
type ReleaseAssets interface {
	UploadReleaseAsset(ctx context.Context, owner, repo string, releaseID int64, name, mediaType string, data []byte) error
}

// attachIndex uploads the index to each release this run made (those of
// its publishes, and those a resync made for revisions that had none). A
// release that already has an index.yaml (another replica attached it) is
// left as it is; a failure is logged: the index on the index branch stands.
func (p *Publisher) attachIndex(ctx context.Context, data []byte) {
	if p.API.Assets == nil {
		return
	}
	rels := append([]*hub.Release(nil), p.Repaired...)
	for _, r := range p.out.Published {
		rels = append(rels, r.Release)
	}
	owner, repo := p.Owner()
	for _, rel := range rels {
		if rel == nil || rel.ID == 0 {
			continue
		}
		err := p.API.Assets.UploadReleaseAsset(ctx, owner, repo, rel.ID, index.FileName, IndexAssetMediaType, data)
		if err != nil && !PublishAlreadyExists(err) {
			p.Log.WithError(err).WithField("tag", rel.TagName).Warn("package index not attached to the release")
		}
	}
}
