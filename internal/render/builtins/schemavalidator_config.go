package builtins

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// validatorConfig is a schema validator's functionConfig: a ConfigMap
// whose data holds the keys below (kubeconform also reads them from the
// config's top level, and takes a boolean there as well).
type validatorConfig struct {
	k8sVersion    string // the schemas' directory prefix: "master", or "v1.30.0" (kubernetes_version)
	strict        bool   // strict: unknown properties are violations (the -strict schemas)
	ignoreMissing bool   // ignore_missing_schemas
	skipKinds     map[string]bool
	// locations are the schema locations the config names (schema_location,
	// then additional_schema_locations; kubeconform's schema_locations too)
	locations []string
}

func (v *schemaValidator) readConfig(fc *yaml.RNode) (validatorConfig, error) {
	get := func(key string) string {
		if v.kubeval == nil {
			if s := scalarValue(fc, key); s != "" {
				return s
			}
		}
		return scalarValue(fc, "data", key)
	}
	flag := func(key string) (bool, error) {
		if v.kubeval == nil {
			if n, err := fc.Pipe(yaml.Lookup(key)); err == nil && n != nil && n.YNode().Tag == yaml.NodeTagBool {
				return n.YNode().Value == "true", nil
			}
			s := get(key)
			return strings.EqualFold(s, "true") || s == "1", nil
		}
		// kubeval parses the value as JSON
		switch s := strings.TrimSpace(get(key)); s {
		case "", "false", "null", "0":
			return false, nil
		case "true":
			return true, nil
		default:
			return false, fmt.Errorf("%s: %q is not true or false", key, s)
		}
	}
	list := func(key string) []string {
		var out []string
		for _, s := range strings.Split(get(key), ",") {
			if v.kubeval == nil {
				s = strings.TrimSpace(s) // kubeval takes the names as they are
			}
			if s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	cfg := validatorConfig{k8sVersion: "master", skipKinds: map[string]bool{}}
	var err error
	if fc != nil {
		if cfg.strict, err = flag("strict"); err != nil {
			return cfg, err
		}
		if cfg.ignoreMissing, err = flag("ignore_missing_schemas"); err != nil {
			return cfg, err
		}
	}
	for _, k := range list("skip_kinds") {
		cfg.skipKinds[k] = true
	}
	if s := get("schema_location"); s != "" {
		cfg.locations = append(cfg.locations, s)
	}
	cfg.locations = append(cfg.locations, list("additional_schema_locations")...)
	if v.kubeval == nil {
		cfg.locations = append(cfg.locations, list("schema_locations")...)
		if s := strings.TrimSpace(get("kubernetes_version")); s != "" && s != "master" {
			if !k8sVersion.MatchString(s) {
				return cfg, fmt.Errorf("kubernetes_version %q is not a Kubernetes version (1.30.0) or master", s)
			}
			cfg.k8sVersion = "v" + strings.TrimPrefix(s, "v")
		}
	}
	return cfg, nil
}

// k8sVersion is a Kubernetes version as kubernetes_version names it.
var k8sVersion = regexp.MustCompile(`^v?[0-9]+\.[0-9]+\.[0-9]+$`)

// locations are where the run reads schemas: the directories inside the
// package the config names or, when it names none, the server's directory
// (where the catalog's images read the schemas they bundle).
func (v *schemaValidator) locations(cfg validatorConfig) ([]schemaLocation, error) {
	if len(cfg.locations) == 0 {
		if v.src.Dir == "" {
			return nil, nil
		}
		return []schemaLocation{serverLocation(v.src.Dir)}, nil
	}
	out := make([]schemaLocation, 0, len(cfg.locations))
	for _, loc := range cfg.locations {
		l, err := packageLocation(v.src, loc)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// scalarValue is the scalar at path whatever its tag (`strict: true` in a
// ConfigMap written by hand is read as kpt's `strict: "true"`), "" when
// there is none.
func scalarValue(rn *yaml.RNode, path ...string) string {
	if rn == nil || rn.YNode() == nil {
		return ""
	}
	n, found, err := nestedNode(rn.YNode(), path...)
	if err != nil || !found || n.Kind != yaml.ScalarNode || n.Tag == yaml.NodeTagNull {
		return ""
	}
	return n.Value
}
