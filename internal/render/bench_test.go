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

// timing is the fastest of several runs, in wall-clock and in CPU time
// (which a busy machine disturbs less).
type timing struct{ wall, cpu time.Duration }

// run runs f and keeps its times if they are the fastest yet.
func (t *timing) run(f func()) {
	w0, c0 := time.Now(), cpuTime()
	f()
	w, c := time.Since(w0), cpuTime()-c0
	if t.wall == 0 || w < t.wall {
		t.wall = w
	}
	if t.cpu == 0 || c < t.cpu {
		t.cpu = c
	}
}

func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

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
	var floor, render timing
	for i := 0; i < b.N; i++ {
		fs, root := genPackage(b, 1000, 50, benchPipeline)
		floor.run(func() { readWrite(b, fs, root) })
		fs, root = genPackage(b, 1000, 50, benchPipeline)
		render.run(func() { benchRender(b, fs, root, opts) })
	}
	b.ReportMetric(ms(floor.wall), "floor-ms")
	b.ReportMetric(ms(render.wall), "render-ms")
	b.ReportMetric(ratio(render.wall, floor.wall), "x-floor")
	b.ReportMetric(ratio(render.cpu, floor.cpu), "x-floor-cpu")
	b.Logf("floor %.0f ms (CPU %.0f ms), render %.0f ms (CPU %.0f ms): %.2f× the floor (CPU %.2f×)",
		ms(floor.wall), ms(floor.cpu), ms(render.wall), ms(render.cpu),
		ratio(render.wall, floor.wall), ratio(render.cpu, floor.cpu))
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
	b.ReportMetric(ratio(kr.wall, render.wall), "x-faster-than-kpt")
	b.Logf("kpt fn render --allow-exec (porchbot fn, a process) %.0f ms: Render %.1f× faster", ms(kr.wall),
		ratio(kr.wall, render.wall))
}

var imageLine = regexp.MustCompile(`image: gcr.io/kpt-fn/([a-z-]+):\S+`)

// BenchmarkKptExecVsRender renders the generated package on disk with
// `kpt fn render --allow-exec`, kpt running the same four functions as
// `porchbot fn <name>` exec functions, and with Render in process (the exec
// functions resolved to the built-ins), alternately; it reports the fastest
// of each, their ratio (x-faster: how many times faster Render is), and
// checks both leave the same files. Skipped when kpt is not installed.
func BenchmarkKptExecVsRender(b *testing.B) {
	kpt, err := exec.LookPath("kpt")
	if err != nil {
		b.Skip("kpt not installed, no kpt figure: ", err)
	}
	tmp := b.TempDir()
	_, fnDir := benchBinary(b)
	pipeline := imageLine.ReplaceAllString(benchPipeline, "exec: "+fnDir+"/$1")
	opts := corpusOptions(fnDir)
	disk := filesys.MakeFsOnDisk()
	var kptRun, inRun timing
	for i := 0; i < b.N; i++ {
		kdir := filepath.Join(tmp, "kpt")
		pdir := filepath.Join(tmp, "inprocess")
		for _, d := range []string{kdir, pdir} {
			if err := os.RemoveAll(d); err != nil {
				b.Fatal(err)
			}
			genPackageAt(b, disk, d, 1000, 50, pipeline)
		}
		kptRun.run(func() {
			cmd := exec.Command(kpt, "fn", "render", "--allow-exec", kdir)
			cmd.Env = append(os.Environ(), "KPT_DISABLE_ATTRIBUTION=")
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("kpt fn render: %v\n%s", err, out)
			}
		})
		inRun.run(func() { benchRender(b, disk, pdir, opts) })
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
	b.ReportMetric(ms(kptRun.wall), "kpt-ms")
	b.ReportMetric(ms(inRun.wall), "render-ms")
	b.ReportMetric(ratio(kptRun.wall, inRun.wall), "x-faster")
	b.Logf("kpt fn render --allow-exec (porchbot fn) %.0f ms, Render %.0f ms: %.1f× faster",
		ms(kptRun.wall), ms(inRun.wall), ratio(kptRun.wall, inRun.wall))
}
