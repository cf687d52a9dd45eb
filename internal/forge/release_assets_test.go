package forge_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-github/v60/github"

	"github.com/porchbot/porchbot/internal/forge/forgetest"
)

// upload is the driver's POST of raw bytes to the upload API (a release's
// upload_url), recorded and checked like every REST answer.
func (d *schemaDriver) upload(token, path, ctype string, body []byte, want int) any {
	d.t.Helper()
	req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(d.api, "/api/v3")+"/api/uploads"+path, bytes.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", ctype)
	resp, err := d.client.Do(req)
	if err != nil {
		d.errs = append(d.errs, fmt.Sprintf("upload %s: %v", path, err))
		return nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != want {
		d.errs = append(d.errs, fmt.Sprintf("upload %s: status %d, want %d: %s", path, resp.StatusCode, want, trim(b)))
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		d.errs = append(d.errs, fmt.Sprintf("upload %s: not JSON: %s", path, trim(b)))
	}
	return v
}

// uploadAsset uploads data as name through go-github's upload request,
// as porchbot does.
func uploadAsset(ctx context.Context, c *github.Client, rel *github.RepositoryRelease, name string, data []byte) (*github.ReleaseAsset, *github.Response, error) {
	u := fmt.Sprintf("repos/acme/catalog/releases/%d/assets?name=%s", rel.GetID(), name)
	req, err := c.NewUploadRequest(u, bytes.NewReader(data), int64(len(data)), "application/yaml")
	if err != nil {
		return nil, nil, err
	}
	var a github.ReleaseAsset
	resp, err := c.Do(ctx, req, &a)
	return &a, resp, err
}

// TestReleaseAssets: an asset uploaded to a release is listed, shown in
// the release, readable as bytes through the REST API and its
// browser_download_url by a reader, not uploadable twice under one name
// nor by a reader, and gone once deleted.
func TestReleaseAssets(t *testing.T) {
	env := forgetest.New(t)
	ctx := context.Background()
	alice, carol := env.Client(forgetest.AliceToken), env.Client(forgetest.CarolToken)
	chkSeedCommit(t, env, "main", map[string]string{"network/upf/Kptfile": "v: 1\n"})
	rel, _, err := alice.Repositories.CreateRelease(ctx, "acme", "catalog", &github.RepositoryRelease{
		TagName: github.String("network/upf/v1"), TargetCommitish: github.String("main")})
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("apiVersion: porchbot.dev/v1alpha1\nkind: PackageIndex\n")
	a, resp, err := uploadAsset(ctx, alice, rel, "index.yaml", data)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %v", err)
	}
	if a.GetName() != "index.yaml" || a.GetSize() != len(data) || a.GetState() != "uploaded" || a.GetContentType() != "application/yaml" ||
		a.GetUploader().GetLogin() != "alice" || !strings.HasSuffix(a.GetBrowserDownloadURL(), "/acme/catalog/releases/download/network/upf/v1/index.yaml") {
		t.Fatalf("asset %s", github.Stringify(a))
	}
	_, resp, err = uploadAsset(ctx, alice, rel, "index.yaml", data)
	chkWantStatus(t, "same name twice", resp, err, http.StatusUnprocessableEntity)
	_, resp, err = uploadAsset(ctx, carol, rel, "other.yaml", data)
	chkWantStatus(t, "reader uploads", resp, err, http.StatusForbidden)

	list, _, err := carol.Repositories.ListReleaseAssets(ctx, "acme", "catalog", rel.GetID(), nil)
	if err != nil || len(list) != 1 || list[0].GetID() != a.GetID() {
		t.Fatalf("list: %v %v", list, err)
	}
	got, _, err := carol.Repositories.GetRelease(ctx, "acme", "catalog", rel.GetID())
	if err != nil || len(got.Assets) != 1 || got.Assets[0].GetName() != "index.yaml" {
		t.Fatalf("release assets: %v %v", got, err)
	}
	rc, redirect, err := carol.Repositories.DownloadReleaseAsset(ctx, "acme", "catalog", a.GetID(), http.DefaultClient)
	if err != nil || redirect != "" || rc == nil {
		t.Fatalf("download: %q %v", redirect, err)
	}
	body, _ := io.ReadAll(rc)
	rc.Close()
	if !bytes.Equal(body, data) {
		t.Fatalf("downloaded %q", body)
	}
	req, _ := http.NewRequest(http.MethodGet, a.GetBrowserDownloadURL(), nil)
	req.SetBasicAuth("carol", forgetest.CarolToken)
	web, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(web.Body)
	web.Body.Close()
	if web.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("browser download: %d %q", web.StatusCode, body)
	}
	if _, err := alice.Repositories.DeleteReleaseAsset(ctx, "acme", "catalog", a.GetID()); err != nil {
		t.Fatal(err)
	}
	_, resp, err = alice.Repositories.GetReleaseAsset(ctx, "acme", "catalog", a.GetID())
	chkWantStatus(t, "deleted asset", resp, err, http.StatusNotFound)
}
