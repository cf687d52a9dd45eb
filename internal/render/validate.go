package render

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	kfile "github.com/porchbot/porchbot/internal/kptfile"
)

// The engine reads the Kptfile model of internal/kptfile (one model for all
// of porchbot); these names keep the engine's API short.
type (
	// Function is one pipeline function (kfile.Function).
	Function = kfile.Function
	// Selector selects a function's resources (kfile.Selector).
	Selector = kfile.Selector
)

// KptfileName is the file that makes a directory a kpt package.
const KptfileName = kfile.FileName

// KptfileError is a package whose Kptfile is missing, unreadable or
// invalid. File is the Kptfile's path as users know it.
type KptfileError struct {
	File    string
	Missing bool
	Err     error
}

func (e *KptfileError) Error() string {
	if e.Missing {
		dir := filepath.Dir(e.File)
		return fmt.Sprintf("no Kptfile found at %q: a kpt package is a directory holding a Kptfile "+
			"(`kpt pkg init %s` writes one)", dir, dir)
	}
	var ve *kfile.ValidationError
	if errors.As(e.Err, &ve) {
		return fmt.Sprintf("invalid Kptfile:\n%v", e.Err)
	}
	return fmt.Sprintf("%s can't be read: %v", e.File, e.Err)
}

func (e *KptfileError) Unwrap() error { return e.Err }

// ValidateError is an invalid Kptfile field, worded as kpt words it, with
// the file and the function it is about.
type ValidateError struct {
	File                 string // the Kptfile, as users know its path
	Function             string // the function's image or exec line, if any
	Field, Value, Reason string
}

func (e *ValidateError) Error() string {
	var sb strings.Builder
	file := e.File
	if file == "" {
		file = kfile.FileName
	}
	if e.Function != "" {
		fmt.Fprintf(&sb, "%s: invalid pipeline function %q:\n", file, e.Function)
	} else {
		fmt.Fprintf(&sb, "%s is invalid:\n", file)
	}
	fmt.Fprintf(&sb, "Field: `%s`\n", e.Field)
	if e.Value != "" {
		fmt.Fprintf(&sb, "Value: %q\n", e.Value)
	}
	fmt.Fprintf(&sb, "Reason: %s\n", e.Reason)
	return sb.String()
}

// KptText is the error as kpt prints it: "Kptfile is invalid:", the field,
// the value and the reason, a line each.
func (e *ValidateError) KptText() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Kptfile is invalid:\nField: `%s`\n", e.Field)
	if e.Value != "" {
		fmt.Fprintf(&sb, "Value: %q\n", e.Value)
	}
	fmt.Fprintf(&sb, "Reason: %s\n", e.Reason)
	return sb.String()
}

// validatePipeline applies kpt's static pipeline checks; file names the
// Kptfile in errors.
func validatePipeline(fsys filesys.FileSystem, pkgPath, file string, p *kfile.Pipeline) error {
	if p == nil {
		return nil
	}
	for _, g := range []struct {
		name string
		fns  []Function
	}{{"mutators", p.Mutators}, {"validators", p.Validators}} {
		for i := range g.fns {
			if err := validateFunction(fsys, pkgPath, g.name, i, &g.fns[i]); err != nil {
				err.File, err.Function = file, g.fns[i].DisplayName()
				return err
			}
		}
	}
	return nil
}

func validateFunction(fsys filesys.FileSystem, pkgPath, fnType string, idx int, f *Function) *ValidateError {
	field := fmt.Sprintf("pipeline.%s[%d]", fnType, idx)
	if f.Image == "" && f.Exec == "" {
		return &ValidateError{Field: field, Reason: "must specify a functon (`image` or `exec`) to execute"}
	}
	if f.Image != "" && f.Exec != "" {
		return &ValidateError{Field: field, Reason: "must not specify both `image` and `exec` at the same time"}
	}
	if f.Image != "" {
		if err := ValidateFunctionImage(f.Image); err != nil {
			return &ValidateError{Field: field + ".image", Value: f.Image, Reason: err.Error()}
		}
	}
	if len(f.ConfigMap) != 0 && f.ConfigPath != "" {
		return &ValidateError{Field: field,
			Reason: "functionConfig must not specify both `configMap` and `configPath` at the same time"}
	}
	if f.ConfigPath != "" {
		if err := validateConfigPathSyntax(f.ConfigPath); err != nil {
			return &ValidateError{Field: field + ".configPath", Value: f.ConfigPath, Reason: err.Error()}
		}
		if _, err := readFnConfigFile(fsys, pkgPath, f.ConfigPath); err != nil {
			return &ValidateError{Field: field + ".configPath", Value: f.ConfigPath, Reason: err.Error()}
		}
	}
	return nil
}

var imageRE = func() *regexp.Regexp {
	path := `(?:[a-z0-9](?:(?:[_.]|__|[-]*)[a-z0-9]+)*)`
	domainComp := `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	domain := fmt.Sprintf(`%s(?:\.%s)*(?:\:[0-9]+)?`, domainComp, domainComp)
	name := fmt.Sprintf(`(?:%s\/)?%s(?:\/%s)*`, domain, path, path)
	version := `((?:[\w][\w.-]{0,127})|(sha256:[a-zA-Z0-9]{64}))`
	return regexp.MustCompile(fmt.Sprintf(`^(?:%s(?:(\:|@)%s)?)$`, name, version))
}()

// ValidateFunctionImage checks an image reference the way kpt does (docker
// reference grammar).
func ValidateFunctionImage(image string) error {
	if !imageRE.MatchString(image) {
		return fmt.Errorf("function name %q is invalid", image)
	}
	return nil
}

func validateConfigPathSyntax(p string) error {
	if strings.TrimSpace(p) == "" {
		return fmt.Errorf("path must not be empty")
	}
	p = filepath.Clean(p)
	if filepath.IsAbs(p) {
		return fmt.Errorf("path must be relative")
	}
	if strings.Contains(p, "..") {
		return fmt.Errorf("path must not be outside the package")
	}
	return nil
}

// readFnConfigFile reads the one KRM resource a configPath file must hold.
func readFnConfigFile(fsys filesys.FileSystem, pkgPath, configPath string) (*yaml.RNode, error) {
	b, err := fsys.ReadFile(filepath.Join(pkgPath, configPath))
	if err != nil {
		return nil, fmt.Errorf("functionConfig must exist in the current package")
	}
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), PreserveSeqIndent: true,
		WrapBareSeqNode: true, DisableUnwrapping: true}).Read()
	if err != nil {
		return nil, fmt.Errorf("failed to read functionConfig %q: %w", configPath, err)
	}
	if len(nodes) > 1 {
		return nil, fmt.Errorf("functionConfig %q must not contain more than one config, got %d", configPath, len(nodes))
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("functionConfig %q: resource must have `apiVersion`, `kind`, and `name`", configPath)
	}
	if err := isKRM(nodes[0]); err != nil {
		return nil, fmt.Errorf("functionConfig %q: %s", configPath, err.Error())
	}
	return nodes[0], nil
}

// kustomizationFileNames are the file names kustomize recognises; kpt lets
// them through its KRM check.
var kustomizationFileNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// isKRM reports why a resource is not a KRM resource (apiVersion, kind and
// metadata.name required), excusing kustomization files as kpt does.
func isKRM(n *yaml.RNode) error {
	if isKustomization(n) {
		return nil
	}
	apiVersion, kind, name, missing := krmMeta(n)
	switch {
	case missing:
		return fmt.Errorf("resource must have `apiVersion`, `kind`, and `name`")
	case apiVersion == "":
		return fmt.Errorf("resource must have `apiVersion`")
	case kind == "":
		return fmt.Errorf("resource must have `kind`")
	case name == "":
		return fmt.Errorf("resource must have `metadata.name`")
	}
	return nil
}

func areKRM(nodes []*yaml.RNode) error {
	for _, n := range nodes {
		if err := isKRM(n); err != nil {
			p, _ := fileAnnotations(n)
			return fmt.Errorf("%s: %s", p, err.Error())
		}
	}
	return nil
}

func isKustomization(n *yaml.RNode) bool {
	p, _ := fileAnnotations(n)
	base := filepath.Base(p)
	for _, k := range kustomizationFileNames {
		if base == k {
			return true
		}
	}
	apiVersion, kind, _, missing := krmMeta(n)
	if missing {
		return false
	}
	return strings.HasPrefix(apiVersion, "kustomize.config.k8s.io") ||
		apiVersion == "" && kind == "Kustomization"
}
