package render

import (
	"context"
	"os"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

const benchPipeline = `pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-namespace:v0.4.1
      configMap:
        namespace: prod
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app.kubernetes.io/part-of: shop
    - image: gcr.io/kpt-fn/set-annotations:v0.1.4
      configMap:
        team: checkout
    - image: gcr.io/kpt-fn/set-image:v0.1.1
      configMap:
        name: nginx
        newTag: 1.27.1
`

func benchOptions() Options {
	if os.Getenv("RENDER_BENCH_FAKES") != "" {
		return Options{Resolve: benchResolver()}
	}
	return Options{}
}

func BenchmarkRender1000(b *testing.B) {
	opts := benchOptions()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		b.StartTimer()
		res, err := Render(context.Background(), fs, root, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Changed) != 51 {
			b.Fatalf("changed %d files", len(res.Changed))
		}
	}
}

func BenchmarkReadWrite1000(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		b.StartTimer()
		rw := &kio.LocalPackageReadWriter{PackagePath: root, PreserveSeqIndent: true, PackageFileName: KptfileName,
			IncludeSubpackages: true, WrapBareSeqNode: true, MatchFilesGlob: matchAllKRM,
			FileSystem: filesys.FileSystemOrOnDisk{FileSystem: fs}}
		nodes, err := rw.Read()
		if err != nil {
			b.Fatal(err)
		}
		if len(nodes) != 1001 {
			b.Fatalf("read %d", len(nodes))
		}
		if err := rw.Write(nodes); err != nil {
			b.Fatal(err)
		}
	}
}
