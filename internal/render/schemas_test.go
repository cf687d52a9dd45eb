package render

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// The server's schema directory (Options.SchemaDir) reaches the schema
// validators, and a schema location a functionConfig names is read from
// the package in the render's file system.
func TestSchemaValidatorsReadTheirSources(t *testing.T) {
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: invalid\n"
	pipeline := "pipeline:\n  validators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:latest\n      configMap:\n        strict: \"true\"\n"
	dir := filepath.Join("..", "..", "testdata", "kube-schemas")

	fs, root := memPkg(t, map[string]string{"Kptfile": kptfile("app", pipeline), "deploy.yaml": deployment})
	res, err := Render(context.Background(), fs, root, Options{SchemaDir: dir})
	var fe *FunctionError
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v, want kubeconform's failure", err)
	}
	rs := res.Results.Items[len(res.Results.Items)-1].Results
	if len(rs) != 2 || rs[0].Field == nil || rs[0].Field.Path != "spec" || rs[1].Field.Path != "spec.replicas" ||
		rs[1].File == nil || rs[1].File.Path != "deploy.yaml" || rs[1].ResourceRef == nil || rs[1].ResourceRef.Name != "web" {
		t.Errorf("results %+v", rs)
	}

	// no schema directory: kubeconform finds no schema and reports nothing
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("app", pipeline), "deploy.yaml": deployment})
	if _, err := Render(context.Background(), fs, root, Options{}); err != nil {
		t.Errorf("without schemas: %v", err)
	}

	// a location inside the package, read from the render's file system
	// (.krmignore keeps kpt, and porchbot, from reading its JSON as resources)
	inPkg := "pipeline:\n  validators:\n    - image: kubeconform\n      configMap:\n        schema_location: schemas\n"
	fs, root = memPkg(t, map[string]string{"Kptfile": kptfile("app", inPkg), "deploy.yaml": deployment, ".krmignore": "schemas\n",
		"schemas/master-standalone/deployment-apps-v1.json": `{"type":"object","required":["spec"],"properties":{"spec":{"required":["paused"]}}}`})
	res, err = Render(context.Background(), fs, root, Options{SchemaDir: dir})
	if !errors.As(err, &fe) {
		t.Fatalf("in-package schemas: err = %v, want kubeconform's failure", err)
	}
	rs = res.Results.Items[len(res.Results.Items)-1].Results
	if len(rs) != 1 || rs[0].Message != "missing property 'paused'" {
		t.Errorf("in-package schemas: results %+v", rs)
	}
}
