package render

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/porchbot/porchbot/internal/benchclock"
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

// BenchmarkRenderVsFloor times, alternately, the floor (ReadWrite1000)
// and the render (Render1000) and reports the fastest of each, wall-clock
// and CPU time (GC included), and their ratios (x-floor, x-floor-cpu);
// alternating and taking the fastest keeps the ratios meaningful on a busy
// machine. Where kpt is installed it also runs `kpt fn render --allow-exec`
// once on the same package (its functions `porchbot fn` exec functions)
// and reports how many times faster Render is (x-faster-than-kpt). Run with
// -benchtime 5x or more.
func BenchmarkRenderVsFloor(b *testing.B) {
	opts := benchOptions()
	var floor, render benchclock.Fastest
	for i := 0; i < b.N; i++ {
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		floor.Run(func() { readWrite(b, fs, root) })
		fs, root = genPackage(b, 1000, 50, benchPipeline)
		render.Run(func() { benchRender(b, fs, root, opts) })
	}
	b.ReportMetric(benchclock.MS(floor.Wall), "floor-ms")
	b.ReportMetric(benchclock.MS(render.Wall), "render-ms")
	b.ReportMetric(benchclock.Ratio(render.Wall, floor.Wall), "x-floor")
	b.ReportMetric(benchclock.Ratio(render.CPU, floor.CPU), "x-floor-cpu")
	b.Logf("floor %.0f ms (CPU %.0f ms), render %.0f ms (CPU %.0f ms): %.2f× the floor (CPU %.2f×)",
		benchclock.MS(floor.Wall), benchclock.MS(floor.CPU), benchclock.MS(render.Wall), benchclock.MS(render.CPU),
		benchclock.Ratio(render.Wall, floor.Wall), benchclock.Ratio(render.CPU, floor.CPU))
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		b.Logf("kpt not installed, no kpt figure: %v", err)
		return
	}
	tmp := b.TempDir()
	src := filepath.Join(tmp, "src")
	genPackageAt(b, filesys.MakeFsOnDisk(), src, 1000, 50, benchPipeline)
	_, fnDir := benchBinary(b)
	kr, _ := kptExec(b, kpt, fnDir, src, "inprocess-1k")
	b.ReportMetric(benchclock.Ratio(kr.wall, render.Wall), "x-faster-than-kpt")
	b.Logf("kpt fn render --allow-exec (porchbot fn, a process) %.0f ms: Render %.1f× faster", benchclock.MS(kr.wall),
		benchclock.Ratio(kr.wall, render.Wall))
}

var imageLine = regexp.MustCompile(`image: gcr.io/kpt-fn/([a-z-]+):\S+`)

// BenchmarkKptExecVsRender renders the generated package on disk with
// `kpt fn render --allow-exec`, kpt running the same four functions as
// `porchbot fn <name>` exec functions, and with Render in process (the exec
// functions resolved to the built-ins), alternately; it reports the fastest
// of each, their ratio (x-faster: how many times faster Render is), and
// checks both leave the same files. Skipped when kpt is not installed.
func BenchmarkKptExecVsRender(b *testing.B) {
	kpt, rel := installedKpt(b)
	tmp := b.TempDir()
	_, fnDir := benchBinary(b)
	pipeline := imageLine.ReplaceAllString(benchPipeline, "exec: "+fnDir+"/$1")
	opts := corpusOptions(fnDir, rel)
	disk := filesys.MakeFsOnDisk()
	var kptRun, inRun benchclock.Fastest
	for i := 0; i < b.N; i++ {
		kdir := filepath.Join(tmp, "kpt")
		pdir := filepath.Join(tmp, "inprocess")
		for _, d := range []string{kdir, pdir} {
			if err := os.RemoveAll(d); err != nil {
				b.Fatal(err)
			}
			genPackageAt(b, disk, d, 1000, 50, pipeline)
		}
		kptRun.Run(func() {
			cmd := exec.Command(kpt, "fn", "render", "--allow-exec", kdir)
			cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("kpt fn render: %v\n%s", err, out)
			}
		})
		inRun.Run(func() { benchRender(b, disk, pdir, opts) })
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
	b.ReportMetric(benchclock.MS(kptRun.Wall), "kpt-ms")
	b.ReportMetric(benchclock.MS(inRun.Wall), "render-ms")
	b.ReportMetric(benchclock.Ratio(kptRun.Wall, inRun.Wall), "x-faster")
	b.Logf("kpt fn render --allow-exec (porchbot fn) %.0f ms, Render %.0f ms: %.1f× faster",
		benchclock.MS(kptRun.Wall), benchclock.MS(inRun.Wall), benchclock.Ratio(kptRun.Wall, inRun.Wall))
}
