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
		local, expected, opts, kpt = kptUpdate(b, origin, updated, editReplicas(benchEdited), "")
	} else {
		local = fetchedLike(b, origin)
		editReplicas(benchEdited)(local)
	}

	// warm: the first merge of a process loads kyaml's Kubernetes schema
	// (a one-time cost the server pays once; kpt pays it on every run)
	if _, err := Merge(origin, updated, local, opts); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var res Result
	cpu0 := selfCPU()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		var err error
		if res, err = Merge(origin, updated, local, opts); err != nil {
			b.Fatal(err)
		}
	}
	per := time.Since(start) / time.Duration(b.N)
	perCPU := (selfCPU() - cpu0) / time.Duration(b.N)
	b.StopTimer()
	peak := mergePeakRSS(b, origin, updated, local)
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
	fmt.Printf("update of %d resources in %d files (every image bumped upstream, replicas edited in %d files):\n", benchResources, benchFiles, benchEdited)
	fmt.Printf("  porchbot Merge:   %8.1f ms wall, %.1f ms CPU (warm), peak RSS %6.1f MiB of a process doing one merge (target <= %d MiB)\n", ms(per), ms(perCPU), float64(peak)/(1<<20), targetPeakRSS>>20)
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
	fmt.Printf("  ratio: %.1f× faster in wall time (target >= %d×), %.1f× in CPU time; identical result: %v; %d conflicts\n",
		ratio, targetRatio, float64(kpt.cpu)/float64(perCPU), d == "", len(res.Conflicts))
	b.ReportMetric(ratio, "x-faster-than-kpt")
	if ratio < targetRatio {
		b.Errorf("Merge is %.1f× faster than kpt pkg update, target %d×", ratio, targetRatio)
	}
	if d != "" {
		b.Errorf("Merge differs from kpt pkg update:\n%.3000s", d)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// selfCPU is the CPU time this process has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

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
func mergePeakRSS(tb testing.TB, origin, updated, local Files) int64 {
	tb.Helper()
	dir := tb.TempDir()
	writeFiles(tb, filepath.Join(dir, "origin"), origin)
	writeFiles(tb, filepath.Join(dir, "updated"), updated)
	writeFiles(tb, filepath.Join(dir, "local"), local)
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
