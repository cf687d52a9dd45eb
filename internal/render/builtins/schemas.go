package builtins

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaSources are where the schema validators (kubeconform, kubeval) may
// read JSON schemas from. They never fetch anything a package names: a
// schema location in a function's config is a directory inside the package,
// and the package's CustomResourceDefinitions give their resources' schemas.
type SchemaSources struct {
	// Dir is the server's schema directory (render.Options.SchemaDir), in
	// kubeconform's layout: {version}-standalone[-strict]/{kind}-{group}-{version}.json,
	// version "master" unless the config names kubernetes_version. It
	// stands in for the schemas the catalog's images bundle. "" for none.
	Dir string
	// Package reads a file of the package the function runs in, by a
	// slash-separated path relative to the package directory (nil: a
	// schema location inside the package cannot be read).
	Package func(rel string) ([]byte, error)
}

// SchemaUser is implemented by the built-ins that read schemas; the render
// engine tells them where from before they run.
type SchemaUser interface {
	UseSchemas(SchemaSources)
}

// errNoSchema is a schema no source has.
var errNoSchema = errors.New("no schema")

// schemaFile is where kubeconform (and kubeval) look for a kind's schema
// under a schema location: {version}-standalone[-strict]/{kind}-{group}-{version}.json,
// the group cut at its first dot and left out for the core group.
func schemaFile(k8sVersion string, strict bool, apiVersion, kind string) string {
	dir := k8sVersion + "-standalone"
	if strict {
		dir += "-strict"
	}
	group, version, found := strings.Cut(apiVersion, "/")
	if !found {
		group, version = "", apiVersion
	}
	name := strings.ToLower(kind)
	if group != "" {
		name += "-" + strings.ToLower(strings.Split(group, ".")[0])
	}
	return dir + "/" + name + "-" + strings.ToLower(version) + ".json"
}

// A schemaLocation is one place schemas are read from: the server's
// directory or a directory inside the package.
type schemaLocation struct {
	read func(file string) ([]byte, error) // fs.ErrNotExist when it has no such file
	name string                            // as the validators' messages name it
}

// serverLocation reads the server's schema directory.
func serverLocation(dir string) schemaLocation {
	return schemaLocation{name: "file://" + filepath.ToSlash(dir), read: func(file string) ([]byte, error) {
		return os.ReadFile(filepath.Join(dir, filepath.FromSlash(file)))
	}}
}

// packageLocation reads a directory of the package: loc must be a relative
// path that stays inside the package (what a functionConfig may name).
func packageLocation(src SchemaSources, loc string) (schemaLocation, error) {
	rel := strings.TrimPrefix(loc, "./")
	if src.Package == nil || strings.Contains(loc, "://") || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return schemaLocation{}, fmt.Errorf("the schema location %q is not a directory inside the package: "+
			"porchbot reads schemas only from the server's schema directory, from directories inside the package "+
			"(a relative path) and from the package's CustomResourceDefinitions, and fetches nothing", loc)
	}
	return schemaLocation{name: loc, read: func(file string) ([]byte, error) {
		return src.Package(path.Join(rel, file))
	}}, nil
}

// compileSchema reads and compiles one schema document; url names it in
// errors.
func compileSchema(url string, doc []byte) (*compiledSchema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("reading the schema %s: %w", url, err)
	}
	c, err := compileValue(url, v)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{doc: v, compiled: c}, nil
}

func compileValue(url string, v any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	// a schema refers to nothing outside itself: no loader is ever asked
	c.UseLoader(noLoader{})
	if err := c.AddResource(url, v); err != nil {
		return nil, fmt.Errorf("reading the schema %s: %w", url, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("compiling the schema %s: %w", url, err)
	}
	return s, nil
}

// noLoader refuses every external reference of a schema.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s: porchbot's schemas are stand-alone and nothing is fetched: %w", url, fs.ErrPermission)
}
