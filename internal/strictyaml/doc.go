// Package strictyaml reads small YAML documents strictly and reports every
// problem with its file, line and column, as a value that can be shown to a
// user (in a check run, a comment or a terminal).
//
// It is shared by the repository configuration (internal/config) and the
// Kptfile reader (internal/kptfile). A document is parsed once into a
// yaml.Node tree (kyaml's alias of go.yaml.in/yaml/v3) with input bounds
// (size, depth, node count, no anchors or aliases), then walked by hand with
// a Reader that collects problems instead of stopping at the first.
package strictyaml
