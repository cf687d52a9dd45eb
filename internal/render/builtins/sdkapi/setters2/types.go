// Package setters2 holds the kpt v0.x setter types of kyaml v0.10's setters2
// package, as the catalog's fix function (v0.2.0–v0.2.1) decodes them: an
// openAPI definition's `x-k8s-cli` extension (from JSON) and a setter
// definition (from YAML). A value of the wrong type fails it with the error
// naming these types (`cannot unmarshal number into Go struct field
// setter.setter.value of type string`), hence their names.
package setters2

// CliExtension is a definition's `x-k8s-cli` extension.
type CliExtension struct {
	Setter       *setter       `json:"setter,omitempty"`
	Substitution *substitution `json:"substitution,omitempty"`
}

type setter struct {
	Name       string            `json:"name,omitempty"`
	Value      string            `json:"value,omitempty"`
	ListValues []string          `json:"listValues,omitempty"`
	EnumValues map[string]string `json:"enumValues,omitempty"`
	Required   bool              `json:"required,omitempty"`
	IsSet      bool              `json:"isSet,omitempty"`
}

type substitution struct {
	Name    string                        `json:"name,omitempty"`
	Pattern string                        `json:"pattern,omitempty"`
	Values  []substitutionSetterReference `json:"values,omitempty"`
}

type substitutionSetterReference struct {
	Ref    string `json:"ref,omitempty"`
	Marker string `json:"marker,omitempty"`
}

// SetterDefinition is a setter's `x-k8s-cli.setter`, decoded from YAML.
type SetterDefinition struct {
	Name        string            `yaml:"name"`
	Value       string            `yaml:"value"`
	ListValues  []string          `yaml:"listValues,omitempty"`
	SetBy       string            `yaml:"setBy,omitempty"`
	Description string            `yaml:"description,omitempty"`
	Count       int               `yaml:"count,omitempty"`
	Type        string            `yaml:"type,omitempty"`
	Schema      string            `yaml:"schema,omitempty"`
	EnumValues  map[string]string `yaml:"enumValues,omitempty"`
	Required    bool              `yaml:"required,omitempty"`
	IsSet       bool              `yaml:"isSet,omitempty"`
}
