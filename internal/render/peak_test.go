package render

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Peak-memory scenarios: each runs alone in a child process (attackChild)
// so that its peak RSS is its own. "floor-X" reads and writes package X
// with kyaml; "render-X" renders it.

// peakPackages are the packages measured: name -> files.
var peakPackages = map[string]func() (filesys.FileSystem, string){
	// about 50 MB of ordinary resources in 50 files
	"50mb": func() (filesys.FileSystem, string) {
		fs := filesys.MakeFsInMemory()
		genPackageAt(panicTB{}, fs, "/pkg", 110_000, 50, benchPipeline)
		return fs, "/pkg"
	},
	// 20,000 resources, each with a setter comment
	"commented": func() (filesys.FileSystem, string) {
		fs := filesys.MakeFsInMemory()
		genCommentedAt(fs, "/pkg", 20_000, 50, benchPipeline)
		return fs, "/pkg"
	},
	// the largest scalars the byte limit lets through: 15 of 1 MiB
	"big-scalars": func() (filesys.FileSystem, string) {
		fs := filesys.MakeFsInMemory()
		kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: big\n" + benchPipeline
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n")
		for i := 0; i < 15; i++ {
			fmt.Fprintf(&b, "  k%d: %s\n", i, strings.Repeat("x", 1<<20))
		}
		if err := fs.WriteFile("/pkg/Kptfile", []byte(kf)); err != nil {
			panic(err)
		}
		if err := fs.WriteFile("/pkg/big.yaml", []byte(b.String())); err != nil {
			panic(err)
		}
		return fs, "/pkg"
	},
	// the worst shape for the default limits: tiny scalars up to the node limit
	"tiny-scalars": func() (filesys.FileSystem, string) {
		fs := filesys.MakeFsInMemory()
		genTinyScalarsAt(fs, "/pkg", DefaultMaxYAMLNodes)
		return fs, "/pkg"
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

func init() {
	for name, mk := range peakPackages {
		mk := mk
		scenarios["floor-"+name] = func() int {
			fs, root := mk()
			if err := readWriteErr(fs, root); err != nil {
				fmt.Println("error:", err)
				return 1
			}
			fmt.Println("ok")
			return 0
		}
		scenarios["render-"+name] = func() int {
			fs, root := mk()
			if _, err := Render(context.Background(), fs, root, Options{}); err != nil {
				fmt.Println("error:", err)
				return 1
			}
			fmt.Println("ok")
			return 0
		}
	}
}
