package render

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// genPackage writes a package of n resources (Deployments, Services and
// ConfigMaps in rotation) spread over files files, with the given Kptfile
// pipeline, into a fresh in-memory file system.
func genPackage(t testing.TB, n, files int, pipeline string) (filesys.FileSystem, string) {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	genPackageAt(t, fs, "/pkg", n, files, pipeline)
	return fs, "/pkg"
}

// genPackageAt writes genPackage's package into directory root of fs.
func genPackageAt(t testing.TB, fs filesys.FileSystem, root string, n, files int, pipeline string) {
	t.Helper()
	if err := fs.MkdirAll(root); err != nil {
		t.Fatal(err)
	}
	kf := "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: bench\n  annotations:\n    config.kubernetes.io/local-config: \"true\"\n" + pipeline
	if err := fs.WriteFile(filepath.Join(root, "Kptfile"), []byte(kf)); err != nil {
		t.Fatal(err)
	}
	docs := make([][]string, files)
	for i := 0; i < n; i++ {
		var d string
		switch i % 3 {
		case 0:
			d = fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%[1]d
  labels:
    app: app-%[1]d
spec:
  replicas: 2
  selector:
    matchLabels:
      app: app-%[1]d
  template:
    metadata:
      labels:
        app: app-%[1]d
    spec:
      containers:
        - name: main
          image: nginx:1.25
          ports:
            - containerPort: 80
          env:
            - name: MODE
              value: prod
          resources:
            limits:
              cpu: 500m
              memory: 128Mi
        - name: sidecar
          image: busybox:1.36
          args: ["sleep", "infinity"]
`, i)
		case 1:
			d = fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: svc-%[1]d
spec:
  selector:
    app: app-%[1]d
  ports:
    - port: 80
      targetPort: 8080
      protocol: TCP
`, i)
		default:
			d = fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: cm-%[1]d
data:
  MODE: prod
  LOG_LEVEL: info
  FEATURE_FLAGS: "a,b,c"
`, i)
		}
		docs[i%files] = append(docs[i%files], d)
	}
	for f, ds := range docs {
		p := filepath.Join(root, fmt.Sprintf("resources-%02d.yaml", f))
		if err := fs.WriteFile(p, []byte(strings.Join(ds, "---\n"))); err != nil {
			t.Fatal(err)
		}
	}
}
