package publish

import (
	"bytes"
	"context"
	"fmt"
	"net/url"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/index"
)

// The package index as a release asset: every release a publish makes
// gets the index as it stands after that publish, index.yaml, so the
// release of <pkg>/vN carries the index that lists vN (docs/index.md).
// One REST call per release made: the upload to the release's upload URL.

// IndexAssetMediaType is the index asset's Content-Type.
const IndexAssetMediaType = "application/yaml"

// ReleaseAssets uploads a file to a release (GitHubReleaseAssets).
type ReleaseAssets interface {
	UploadReleaseAsset(ctx context.Context, owner, repo string, releaseID int64, name, mediaType string, data []byte) error
}

// GitHubReleaseAssets uploads with go-github's upload request: POST
// {uploads}/repos/{owner}/{repo}/releases/{id}/assets?name=NAME, the
// release's upload_url (go-github's own UploadReleaseAsset wants a file
// on disk).
type GitHubReleaseAssets struct{ GH *github.Client }

// UploadReleaseAsset uploads data as name.
func (g GitHubReleaseAssets) UploadReleaseAsset(ctx context.Context, owner, repo string, releaseID int64, name, mediaType string, data []byte) error {
	u := fmt.Sprintf("repos/%s/%s/releases/%d/assets?name=%s", url.PathEscape(owner), url.PathEscape(repo), releaseID, url.QueryEscape(name))
	req, err := g.GH.NewUploadRequest(u, bytes.NewReader(data), int64(len(data)), mediaType)
	if err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	if _, err := g.GH.Do(ctx, req, nil); err != nil {
		return fmt.Errorf("upload %s: %w", name, err)
	}
	return nil
}

// attachIndex uploads the index to each release this run made (those of
// its publishes, and those a resync made for revisions that had none). A
// release that already has an index.yaml (another replica attached it) is
// left as it is; a failure is logged: the index on the index branch stands.
func (p *Publisher) attachIndex(ctx context.Context, data []byte) {
	if p.API.Assets == nil {
		return
	}
	rels := append([]*github.RepositoryRelease(nil), p.Repaired...)
	for _, r := range p.out.Published {
		rels = append(rels, r.Release)
	}
	owner, repo := p.Owner()
	for _, rel := range rels {
		if rel.GetID() == 0 {
			continue
		}
		err := p.API.Assets.UploadReleaseAsset(ctx, owner, repo, rel.GetID(), index.FileName, IndexAssetMediaType, data)
		if err != nil && !PublishAlreadyExists(err) {
			p.Log.WithError(err).WithField("tag", rel.GetTagName()).Warn("package index not attached to the release")
		}
	}
}
