package kptfile

import (
	"fmt"
	htmltemplate "html/template"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// DefaultDescription is the description `kpt pkg init` writes when none is
// given.
const DefaultDescription = "sample description"

// Names of the files `kpt pkg init` writes besides the Kptfile.
const (
	ReadmeFileName         = "README.md"
	PackageContextFileName = "package-context.yaml"
)

// InitOptions are the inputs of `kpt pkg init`: the package (directory) name
// and the --description, --keywords and --site flags.
type InitOptions struct {
	Name        string
	Description string
	Keywords    []string
	Site        string
}

// New returns the Kptfile `kpt pkg init` writes for a package named name
// with --description description: apiVersion, kind, metadata with the name
// and the local-config annotation, and info with the description ("info: {}"
// when the description is empty, as kpt writes it). Bytes of the result are
// byte for byte kpt's file.
func New(name, description string) *File {
	return NewInit(InitOptions{Name: name, Description: description})
}

// NewInit is New with keywords and site as well.
func NewInit(o InitOptions) *File {
	data := initKptfile(o)
	f, err := Parse(data)
	if err != nil {
		// The document is built here from typed values; failing to read it
		// back is a bug, not an input error.
		panic(fmt.Sprintf("kptfile: New produced an invalid Kptfile: %v", err))
	}
	return f
}

func initKptfile(o InitOptions) []byte {
	k := struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name        string            `yaml:"name"`
			Annotations map[string]string `yaml:"annotations"`
		} `yaml:"metadata"`
		Info *Info `yaml:"info"`
	}{APIVersion: APIVersion, Kind: Kind}
	k.Metadata.Name = o.Name
	k.Metadata.Annotations = map[string]string{LocalConfigAnnotation: "true"}
	k.Info = &Info{Site: o.Site, Description: o.Description, Keywords: o.Keywords}
	b, err := yaml.Marshal(k)
	if err != nil {
		panic(fmt.Sprintf("kptfile: marshal new Kptfile: %v", err))
	}
	return b
}

// InitFiles returns the three files `kpt pkg init` writes, by name:
// Kptfile, README.md and package-context.yaml, byte for byte.
func InitFiles(o InitOptions) map[string][]byte {
	return map[string][]byte{
		FileName:               initKptfile(o),
		ReadmeFileName:         Readme(o.Name, o.Description),
		PackageContextFileName: PackageContext(),
	}
}

// Readme is the README.md `kpt pkg init` writes: the package name as title,
// the description, and how to fetch, view and apply the package. kpt fills
// it in with html/template, so the name and description are HTML-escaped
// ("it's" becomes "it&#39;s"); Readme does the same.
func Readme(name, description string) []byte {
	name, description = htmlEscape(name), htmlEscape(description)
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n## Description\n%s\n\n## Usage\n\n", name, description)
	fmt.Fprintf(&b, "### Fetch the package\n`kpt pkg get REPO_URI[.git]/PKG_PATH[@VERSION] %s`\n", name)
	b.WriteString("Details: https://kpt.dev/reference/cli/pkg/get/\n\n")
	fmt.Fprintf(&b, "### View package content\n`kpt pkg tree %s`\n", name)
	b.WriteString("Details: https://kpt.dev/reference/cli/pkg/tree/\n\n")
	fmt.Fprintf(&b, "### Apply the package\n```\nkpt live init %s\nkpt live apply %s --reconcile-timeout=2m --output=table\n```\n", name, name)
	b.WriteString("Details: https://kpt.dev/reference/cli/live/\n")
	return []byte(b.String())
}

var htmlText = htmltemplate.Must(htmltemplate.New("text").Parse("{{.}}"))

// htmlEscape escapes s as html/template does in HTML text.
func htmlEscape(s string) string {
	var b strings.Builder
	if err := htmlText.Execute(&b, s); err != nil {
		return htmltemplate.HTMLEscapeString(s)
	}
	return b.String()
}

// PackageContext is the package-context.yaml `kpt pkg init` writes: a
// local-config ConfigMap "kptfile.kpt.dev" with data.name "example" (kpt
// writes "example" whatever the package's name).
func PackageContext() []byte {
	return []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  name: example
`)
}
