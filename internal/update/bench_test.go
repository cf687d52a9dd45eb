package update

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The benchmark's package: 1,000 resources in 50 files; the upstream bumps
// every container image, the downstream edits replicas in 10 files.
const (
	benchResources = 1000
	benchFiles     = 50
	benchEdited    = 10

	targetRatio   = 20        // Merge at least 20× faster than kpt pkg update
	targetPeakRSS = 100 << 20 // and within 100 MiB
)

// peakDirEnv names the directory the peak-memory child merges.
const peakDirEnv = "PORCHBOT_UPDATE_PEAK_DIR"

// BenchmarkUpdateVsKpt merges the 1,000-resource update with Merge and
// with `kpt pkg update` on the same inputs, in one run, and prints the
// ratio, both peak memories (each measured in a process of its own) and
// whether the results are identical. Missing a target fails the benchmark
// (make bench reports it). Without kpt on PATH only Merge is measured.
func BenchmarkUpdateVsKpt(b *testing.B) {
	origin := genUpdatePackage(benchResources, benchFiles)
	updated := bumpImages(origin)
	_, kptErr := exec.LookPath("kpt")
	var local, expected Files
	var opts Options
	var kpt kptRun
	if kptErr == nil {
		local, expected, opts, kpt = kptUpdate(b, origin, updated, editReplicas(benchEdited))
	} else {
		local = fetchedLike(b, origin)
		editReplicas(benchEdited)(local)
	}

	b.ResetTimer()
	var res Result
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = Merge(origin, updated, local, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	per := b.Elapsed() / time.Duration(b.N)
	peak := mergePeakRSS(b, origin, updated, local, opts)
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	fmt.Printf("update of %d resources in %d files (every image bumped upstream, replicas edited in %d files):\n", benchResources, benchFiles, benchEdited)
	fmt.Printf("  porchbot Merge:   %8.1f ms, peak RSS %6.1f MiB (target <= %d MiB)\n", ms(per), float64(peak)/(1<<20), targetPeakRSS>>20)
	if peak > targetPeakRSS {
		b.Errorf("peak RSS %.1f MiB > %d MiB", float64(peak)/(1<<20), targetPeakRSS>>20)
	}
	if kptErr != nil {
		fmt.Printf("  kpt pkg update:   skipped (kpt is not on PATH)\n")
		return
	}
	ratio := float64(kpt.wall) / float64(per)
	fmt.Printf("  kpt pkg update:   %8.1f ms wall, %.1f ms CPU, peak RSS %6.1f MiB\n", ms(kpt.wall), ms(kpt.cpu), float64(kpt.maxRSS)/(1<<20))
	d := diffFiles(res.Files, expected)
	fmt.Printf("  ratio: %.1f× faster (target >= %d×); identical result: %v; %d conflicts\n", ratio, targetRatio, d == "", len(res.Conflicts))
	b.ReportMetric(ratio, "x-faster-than-kpt")
	if ratio < targetRatio {
		b.Errorf("Merge is %.1f× faster than kpt pkg update, target %d×", ratio, targetRatio)
	}
	if d != "" {
		b.Errorf("Merge differs from kpt pkg update:\n%.3000s", d)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// fetchedLike is origin as kpt pkg get would have fetched it (merge
// comments, upstream identifiers, an upstream in the Kptfile), made by
// Merge itself for when kpt is absent.
func fetchedLike(tb testing.TB, origin Files) Files {
	tb.Helper()
	seed := Files{}
	for p, b := range origin {
		seed[p] = b
	}
	seed["Kptfile"] = append(append([]byte(nil), origin["Kptfile"]...),
		"upstream:\n  type: git\n  git:\n    repo: https://example.com/up\n    directory: /app\n    ref: v1\n  updateStrategy: resource-merge\n"...)
	res, err := Merge(origin, origin, seed, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return res.Files
}

// mergePeakRSS runs one Merge in a child process (TestUpdatePeakChild) and
// returns its peak RSS.
func mergePeakRSS(tb testing.TB, origin, updated, local Files, opts Options) int64 {
	tb.Helper()
	dir := tb.TempDir()
	writeFiles(tb, filepath.Join(dir, "origin"), origin)
	writeFiles(tb, filepath.Join(dir, "updated"), updated)
	writeFiles(tb, filepath.Join(dir, "local"), local)
	if opts.Lock != nil {
		writeFiles(tb, filepath.Join(dir, "lock"), Files{"ref": []byte(opts.Ref), "lock-ref": []byte(opts.Lock.Ref)})
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestUpdatePeakChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), peakDirEnv+"="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("peak child: %v\n%s", err, out)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		tb.Skip("no rusage on this system")
	}
	return ru.Maxrss << 10
}

// TestUpdatePeakChild is the child of mergePeakRSS: it reads the three
// trees and merges them once, so that its process's peak RSS is Merge's.
func TestUpdatePeakChild(t *testing.T) {
	dir := os.Getenv(peakDirEnv)
	if dir == "" {
		t.Skip("runs only as the child process of BenchmarkUpdateVsKpt (" + peakDirEnv + ")")
	}
	origin, updated, local := readDir(t, filepath.Join(dir, "origin")), readDir(t, filepath.Join(dir, "updated")), readDir(t, filepath.Join(dir, "local"))
	if _, err := Merge(origin, updated, local, Options{}); err != nil {
		t.Fatal(err)
	}
}
