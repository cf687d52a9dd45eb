package render

import (
	"context"
	"os"
	"strconv"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

func TestZZGen(t *testing.T) {
	d := os.Getenv("ZZ_GEN")
	if d == "" {
		t.Skip()
	}
	n, _ := strconv.Atoi(os.Getenv("ZZ_N"))
	genPackageAt(t, filesys.MakeFsOnDisk(), d, n, 50, processPipeline)
	res, err := Render(context.Background(), filesys.MakeFsOnDisk(), d, Options{MaxFiles: -1, MaxBytes: -1, Bounds: Bounds{MaxYAMLNodes: -1}})
	t.Logf("stats %+v err %v", res.stats, err)
}
