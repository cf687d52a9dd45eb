package render

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Peak-memory scenarios: each runs alone in a child process (attackChild)
// so that its peak RSS is its own. "floor-X" reads and writes package X
// with kyaml; "render-X" renders it.

// peakPackages are the packages measured: name -> files.
var peakPackages = map[string]func(fs filesys.FileSystem, root string){
	// about 50 MB of ordinary resources in one file: refused by the
	// default limits
	"50mb": func(fs filesys.FileSystem, root string) {
		genPackageAt(panicTB{}, fs, root, 170_000, 1, benchPipeline)
	},
	// ordinary resources up to the default limits (the node limit first)
	"at-limits": func(fs filesys.FileSystem, root string) {
		genPackageAt(panicTB{}, fs, root, 3_700, 20, benchPipeline)
	},
	// 20,000 resources, each with a setter comment
	"commented": func(fs filesys.FileSystem, root string) {
		genCommentedAt(fs, root, 20_000, 50, benchPipeline)
	},
	// the largest scalars the byte limit lets through: 15 of 1 MiB
	"big-scalars": func(fs filesys.FileSystem, root string) {
		kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: big\n" + benchPipeline
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n")
		for i := 0; i < 15; i++ {
			fmt.Fprintf(&b, "  k%d: %s\n", i, strings.Repeat("x", 1<<20))
		}
		if err := fs.WriteFile(root+"/Kptfile", []byte(kf)); err != nil {
			panic(err)
		}
		if err := fs.WriteFile(root+"/big.yaml", []byte(b.String())); err != nil {
			panic(err)
		}
	},
	// the worst shape for the default limits: tiny scalars up to the node limit
	"tiny-scalars": func(fs filesys.FileSystem, root string) {
		genTinyScalarsAt(fs, root, DefaultMaxYAMLNodes)
	},
}

// genCommentedAt writes genPackage's package with a setter comment on
// every resource's first label, as apply-setters packages have.
func genCommentedAt(fs filesys.FileSystem, root string, n, files int, pipeline string) {
	genPackageAt(panicTB{}, fs, root, n, files, pipeline)
	for f := 0; f < files; f++ {
		p := fmt.Sprintf("%s/resources-%02d.yaml", root, f)
		b, err := fs.ReadFile(p)
		if err != nil {
			panic(err)
		}
		s := strings.ReplaceAll(string(b), "\n  name: ", "\n  # the resource's name\n  name: ")
		s = strings.ReplaceAll(s, "image: nginx:1.25\n", "image: nginx:1.25 # kpt-set: ${image}\n")
		s = strings.ReplaceAll(s, "  replicas: 2\n", "  replicas: 2 # kpt-set: ${replicas}\n")
		s = strings.ReplaceAll(s, "  LOG_LEVEL: info\n", "  LOG_LEVEL: info # kpt-set: ${log-level}\n")
		if err := fs.WriteFile(p, []byte(s)); err != nil {
			panic(err)
		}
	}
}

// genTinyScalarsAt writes ConfigMaps whose data is flow lists of one-byte
// scalars, about nodes nodes as the limit counts them.
func genTinyScalarsAt(fs filesys.FileSystem, root string, nodes int64) {
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: tiny\n" + benchPipeline
	if err := fs.WriteFile(root+"/Kptfile", []byte(kf)); err != nil {
		panic(err)
	}
	const perDoc = 10_000
	var b strings.Builder
	docs := 0
	for budget := nodes - 1000; budget > 4*perDoc; budget -= 4*perDoc + 100 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t%d\ndata:\n  x: [%sa]\n", docs,
			strings.Repeat("a,", perDoc))
		docs++
	}
	if err := fs.WriteFile(root+"/tiny.yaml", []byte(b.String())); err != nil {
		panic(err)
	}
}

// panicTB lets the test helpers run outside a test.
type panicTB struct{ testing.TB }

func (panicTB) Helper()           {}
func (panicTB) Fatal(args ...any) { panic(fmt.Sprint(args...)) }

// readWriteErr is the floor: kyaml reading and writing the package.
func readWriteErr(fs filesys.FileSystem, root string) error {
	fsys := filesys.FileSystemOrOnDisk{FileSystem: fs}
	nodes, err := (&kio.LocalPackageReader{PackagePath: root, PreserveSeqIndent: true, PackageFileName: KptfileName,
		IncludeSubpackages: true, WrapBareSeqNode: true, MatchFilesGlob: matchAllKRM, FileSystem: fsys}).Read()
	if err != nil {
		return err
	}
	return (&kio.LocalPackageWriter{PackagePath: root, FileSystem: fsys}).Write(nodes)
}

// dirEnv names the package directory a peak scenario works on (written
// by the parent, so that the child's peak is the render's alone).
const dirEnv = "PORCHBOT_RENDER_DIR"

// unlimitedEnv makes a render scenario lift the package limits.
const unlimitedEnv = "PORCHBOT_RENDER_UNLIMITED"

func init() {
	disk := filesys.MakeFsOnDisk()
	scenarios["floor"] = func() int {
		if err := readWriteErr(disk, os.Getenv(dirEnv)); err != nil {
			fmt.Println("error:", err)
			return 1
		}
		fmt.Println("ok")
		return 0
	}
	scenarios["render"] = func() int {
		opts := Options{}
		if os.Getenv(unlimitedEnv) != "" {
			opts = Options{MaxFiles: -1, MaxBytes: -1, Bounds: Bounds{MaxYAMLNodes: -1}}
		}
		if _, err := Render(context.Background(), disk, os.Getenv(dirEnv), opts); err != nil {
			fmt.Println("error:", err)
			return 0 // a refusal is an outcome; the caller reads it
		}
		fmt.Println("ok")
		return 0
	}
}

// BenchmarkPeakMemory measures peak RSS, each in a child process of its
// own (RSS and not heap high-water, because what kills a pod is the
// process's resident memory, the Go runtime's own and a function child's
// included; docs/limits.md): the floor (kyaml reading and writing the
// package) and the render of packages up to the default limits, of the
// 20,000-resource package with setter comments (limits lifted), of a 50 MB
// package file, the alias bomb and the string-doubling starlark. It prints
// each next to its floor and fails when a target is missed: a render
// within 2x its floor's memory (and the commented package within 3x its
// time), the refused and attack renders within 2x the floor of the
// package at the limits. Each render child runs capped just above its
// target, so that a miss fails fast instead of taking the machine's
// memory. Run with -benchtime 1x.
func BenchmarkPeakMemory(b *testing.B) {
	var missed []string
	miss := func(format string, args ...any) {
		missed = append(missed, fmt.Sprintf(format, args...))
	}
	mb := func(n int64) float64 { return float64(n) / (1 << 20) }
	disk := filesys.MakeFsOnDisk()
	gen := func(name string) string {
		dir := b.TempDir() + "/pkg"
		if err := disk.MkdirAll(dir); err != nil {
			b.Fatal(err)
		}
		peakPackages[name](disk, dir)
		return dir
	}
	run := func(env []string, mem int64, cpu int) child {
		return runChild(b, env, mem, cpu)
	}
	ok := func(c child) bool { return c.err == nil && strings.HasPrefix(c.out, "ok") }
	var refFloor int64
	for i := 0; i < b.N; i++ {
		for _, name := range []string{"at-limits", "tiny-scalars", "big-scalars", "commented"} {
			floor := run([]string{attackEnv + "=floor", dirEnv + "=" + gen(name)}, 8<<30, 600)
			if !ok(floor) {
				b.Fatalf("floor of %s: %v\n%s%s", name, floor.err, floor.out, truncate(floor.stderr, 2000))
			}
			if name == "at-limits" {
				refFloor = floor.rss
			}
			env := []string{attackEnv + "=render", dirEnv + "=" + gen(name)}
			timeCap := 600
			if name == "commented" {
				env = append(env, unlimitedEnv+"=1")
				timeCap = int(3*floor.cpu/time.Second) + 5
			}
			// capped above the target: RLIMIT_DATA counts the Go runtime's
			// reservations besides what is resident
			r := run(env, 2*floor.rss+256<<20, timeCap)
			b.ReportMetric(mb(floor.rss), name+"-floor-MiB")
			b.ReportMetric(mb(r.rss), name+"-render-MiB")
			b.Logf("%-13s floor %4.0f MiB %6.2fs   render %4.0f MiB %6.2fs   %.2fx memory, %.2fx time",
				name, mb(floor.rss), floor.wall.Seconds(), mb(r.rss), r.wall.Seconds(),
				float64(r.rss)/float64(floor.rss), r.wall.Seconds()/floor.wall.Seconds())
			switch {
			case !ok(r):
				miss("%s: the render did not finish within 2x the floor's memory and 3x its CPU time: %v %s",
					name, r.err, truncate(r.out, 300))
			case r.rss > 2*floor.rss:
				miss("%s: render peak %.0f MiB is over 2x the floor's %.0f MiB", name, mb(r.rss), mb(floor.rss))
			case name == "commented" && r.wall > 3*floor.wall:
				miss("%s: render %.1fs is over 3x the floor's %.1fs", name, r.wall.Seconds(), floor.wall.Seconds())
			}
		}
		for _, a := range []struct{ name, want string }{
			{"50mb", "input too large"},
			{"alias-bomb", "alias references"},
			{"string-doubling", "exceeded its memory limit"},
		} {
			env := []string{attackEnv + "=" + a.name}
			if a.name == "50mb" {
				env = []string{attackEnv + "=render", dirEnv + "=" + gen(a.name)}
			}
			r := run(env, 2*refFloor+256<<20, 600)
			b.ReportMetric(mb(r.rss), a.name+"-MiB")
			b.Logf("%-15s render %4.0f MiB (%.2fx the floor at the limits), %.2fs", a.name, mb(r.rss),
				float64(r.rss)/float64(refFloor), r.wall.Seconds())
			if r.err != nil || !strings.Contains(r.out, a.want) {
				miss("%s: the render did not fail with %q within 2x the floor at the limits: %v %s", a.name, a.want,
					r.err, truncate(r.out, 300))
			} else if r.rss > 2*refFloor {
				miss("%s: peak %.0f MiB is over 2x the floor at the limits (%.0f MiB)", a.name, mb(r.rss), mb(refFloor))
			}
		}
	}
	if len(missed) > 0 {
		b.Fatalf("targets missed:\n  %s", strings.Join(missed, "\n  "))
	}
}
