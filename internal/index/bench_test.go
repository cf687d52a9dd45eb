package index_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/porchbot/porchbot/internal/index"
)

// Benchmark sizes and target (issue: 1,000 packages and 10,000 tags,
// rebuilt in under 5 s).
const (
	benchPackages  = 1000
	benchRevisions = 10
	benchTarget    = 5 * time.Second
)

// benchRepo writes a repository of benchPackages packages, each published
// benchRevisions times (one commit per revision, tagged), with git
// fast-import.
func benchRepo(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not on PATH")
	}
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", "--bare", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v\n%s", err, out)
	}
	var s bytes.Buffer
	mark := 0
	for rev := 1; rev <= benchRevisions; rev++ {
		for p := 0; p < benchPackages; p++ {
			mark++
			kptfile := fmt.Sprintf("apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p%d\ninfo:\n  description: package %d\n", p, p)
			deploy := fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: p%d\nspec:\n  replicas: %d\n", p, rev)
			fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\ncommitter a <a@x> %d +0000\ndata 1\nx\n", mark, 1_700_000_000+mark)
			fmt.Fprintf(&s, "M 644 inline pkgs/p%d/Kptfile\ndata %d\n%s\n", p, len(kptfile), kptfile)
			fmt.Fprintf(&s, "M 644 inline pkgs/p%d/deploy.yaml\ndata %d\n%s\n", p, len(deploy), deploy)
			fmt.Fprintf(&s, "reset refs/tags/pkgs/p%d/v%d\nfrom :%d\n\n", p, rev, mark)
		}
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = &s
	cmd.Env = append(os.Environ(), "GIT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git fast-import: %v\n%s", err, out)
	}
	return dir
}

// BenchmarkIndexRebuild: the whole index of 1,000 packages and 10,000 tags
// built from scratch from the repository (no previous index), and the
// incremental build after one more publish (the previous index reused).
func BenchmarkIndexRebuild(b *testing.B) {
	dir := benchRepo(b)
	ctx := context.Background()
	src, _, err := index.Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	var full time.Duration
	var idx *index.Index
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if idx, err = index.Build(ctx, src, index.Options{Repository: "acme/catalog"}); err != nil {
			b.Fatal(err)
		}
		full += time.Since(start)
	}
	b.StopTimer()
	tags := 0
	for _, p := range idx.Packages {
		tags += len(p.Revisions)
	}
	if len(idx.Packages) != benchPackages || tags != benchPackages*benchRevisions {
		b.Fatalf("%d packages, %d revisions", len(idx.Packages), tags)
	}
	start := time.Now()
	if _, err := index.Build(ctx, src, index.Options{Repository: "acme/catalog", Previous: idx}); err != nil {
		b.Fatal(err)
	}
	incr := time.Since(start)
	mean := full / time.Duration(b.N)
	b.ReportMetric(mean.Seconds(), "s/rebuild")
	b.ReportMetric(incr.Seconds(), "s/incremental")
	fmt.Printf("\nindex of %d packages, %d tags: full rebuild %.2fs (target < %s), incremental %.2fs (%.1f× faster)\n",
		benchPackages, tags, mean.Seconds(), benchTarget, incr.Seconds(), mean.Seconds()/incr.Seconds())
	if mean > benchTarget {
		b.Fatalf("full rebuild %.2fs, over the target of %s", mean.Seconds(), benchTarget)
	}
}
