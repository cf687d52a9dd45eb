package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

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
		benchRender(b, fs, root, opts)
	}
}

func BenchmarkReadWrite1000(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		b.StartTimer()
		readWrite(b, fs, root)
	}
}

// benchRender renders the generated package, which must change every file.
func benchRender(b *testing.B, fs filesys.FileSystem, root string, opts Options) {
	res, err := Render(context.Background(), fs, root, opts)
	if err != nil {
		b.Fatal(err)
	}
	if len(res.Changed) != 51 {
		b.Fatalf("changed %d files", len(res.Changed))
	}
}

// readWrite is the floor: kyaml reading and writing the generated package.
func readWrite(b *testing.B, fs filesys.FileSystem, root string) {
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

// fastest runs f on a fresh package n times and returns its fastest run.
func fastest(best time.Duration, f func()) time.Duration {
	t0 := time.Now()
	f()
	if d := time.Since(t0); best == 0 || d < best {
		return d
	}
	return best
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// BenchmarkRenderVsFloor1000 times, alternately, the floor (ReadWrite1000)
// and the render (Render1000) and reports the fastest of each and their
// ratio (x-floor); alternating and taking the fastest keeps the ratio
// meaningful on a busy machine. Run with -benchtime 5x or more.
func BenchmarkRenderVsFloor1000(b *testing.B) {
	opts := benchOptions()
	var floor, render time.Duration
	for i := 0; i < b.N; i++ {
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		floor = fastest(floor, func() { readWrite(b, fs, root) })
		fs, root = genPackage(b, 1000, 50, benchPipeline)
		render = fastest(render, func() { benchRender(b, fs, root, opts) })
	}
	b.ReportMetric(ms(floor), "floor-ms")
	b.ReportMetric(ms(render), "render-ms")
	b.ReportMetric(float64(render)/float64(floor), "x-floor")
	b.Logf("floor %.0f ms, render %.0f ms: %.2f× the floor", ms(floor), ms(render), float64(render)/float64(floor))
}

var imageLine = regexp.MustCompile(`image: gcr.io/kpt-fn/([a-z-]+):\S+`)

// BenchmarkKptExecRender1000 renders the generated package on disk with
// `kpt fn render --allow-exec`, kpt running the same four functions as
// `porchbot fn <name>` exec functions, and with Render in process (the exec
// functions resolved to the built-ins), alternately; it reports the fastest
// of each, their ratio (x-faster: how many times faster Render is), and
// checks both leave the same files. Skipped when kpt is not installed.
func BenchmarkKptExecRender1000(b *testing.B) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		b.Skip("kpt not installed, no kpt figure: ", err)
	}
	tmp := b.TempDir()
	fnDir := buildFnScripts(b, tmp)
	pipeline := imageLine.ReplaceAllString(benchPipeline, "exec: "+fnDir+"/$1")
	opts := corpusOptions(fnDir)
	disk := filesys.MakeFsOnDisk()
	var kptBest, inBest time.Duration
	for i := 0; i < b.N; i++ {
		kdir := filepath.Join(tmp, "kpt")
		pdir := filepath.Join(tmp, "inprocess")
		for _, d := range []string{kdir, pdir} {
			if err := os.RemoveAll(d); err != nil {
				b.Fatal(err)
			}
			genPackageAt(b, disk, d, 1000, 50, pipeline)
		}
		kptBest = fastest(kptBest, func() {
			cmd := exec.Command(kpt, "fn", "render", "--allow-exec", kdir)
			cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("kpt fn render: %v\n%s", err, out)
			}
		})
		inBest = fastest(inBest, func() { benchRender(b, disk, pdir, opts) })
		if i == 0 {
			want, got := treeFiles(b, disk, kdir), treeFiles(b, disk, pdir)
			if len(want) != len(got) {
				b.Fatalf("kpt left %d files, Render %d", len(want), len(got))
			}
			for name, w := range want {
				if string(got[name]) != string(w) {
					b.Fatalf("%s differs from kpt's:\n--- Render ---\n%s\n--- kpt ---\n%s", name, got[name], w)
				}
			}
		}
	}
	b.ReportMetric(ms(kptBest), "kpt-ms")
	b.ReportMetric(ms(inBest), "render-ms")
	b.ReportMetric(float64(kptBest)/float64(inBest), "x-faster")
	b.Logf("kpt fn render --allow-exec (porchbot fn) %.0f ms, Render %.0f ms: %.1f× faster",
		ms(kptBest), ms(inBest), float64(kptBest)/float64(inBest))
}
