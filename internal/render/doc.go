// Package render runs a kpt package's Kptfile pipeline in process, with the
// semantics of `kpt fn render` (kpt v1.0.0-beta.56), on any
// sigs.k8s.io/kustomize/kyaml/filesys.FileSystem, in-memory ones included.
//
// What it reproduces from kpt:
//
//   - Packages: the directory holding the root Kptfile and every nested
//     directory with its own Kptfile (a subpackage). Subpackages render first,
//     depth-first in sorted order; each sees only its own resources (and its
//     own subpackages' rendered ones); the parent's pipeline then sees its own
//     resources after all of its subpackages' (kpt's input order). A
//     subpackage without a pipeline passes its resources through.
//   - Resources: every Kptfile, *.yaml, *.yml and *.json file of a package
//     (.krmignore honoured), the Kptfile and function config files included,
//     read as kyaml's LocalPackageReader reads them for kpt (reader
//     annotations, sequence-indentation annotation, package-path annotation):
//     its walk lists the files, and read.go sets the annotations on the node
//     tree, leaving to kyaml's reader what is out of the ordinary.
//   - Pipeline: mutators, then validators; validators get copies, so whatever
//     they change is discarded. A mutator's configPath config is the package's
//     resource at that path as mutated so far; a validator's is the file as
//     it is on disk; configMap becomes a ConfigMap named function-input.
//     Selectors (any may match; a resource matching two is passed twice, as
//     in kpt) and exclusions (apiVersion, kind, name, namespace, labels,
//     annotations) limit what a function sees; its output is merged back in
//     place and resources it created are appended.
//   - Each function runs as kpt runs an exec or container function
//     (kyaml runtimeutil.FunctionFilter): id annotations, a ResourceList in
//     and out, comments copied back from the input and field order synced,
//     internal/legacy annotations reconciled, new resources put in a file
//     named after kind and name under the directory of the function config,
//     output validated (KRM only, no two resources at one file and index, no
//     path outside the package), results parsed (wrapped or bare list, legacy
//     resourceRef.metadata and suggestedValue shapes).
//   - Writing: nothing is written unless every function of every package
//     passed; then resources go back to their files (documents ordered by
//     index, reader annotations stripped, each document with the sequence
//     indentation it was read with, a lone resource in a .json file as JSON),
//     files whose resources all disappeared are deleted, other files are left
//     alone, and Config Connector resources get kpt's attribution annotation.
//   - Results: kpt's FunctionResultList (per function: image or exec, exit
//     code, stderr on failure, structured results) and its exit code.
//
// The in-memory path: serializing every function's input and output, as kpt
// must, is what makes kpt's comment quirks happen, and it is slow. A function
// whose input has no folded scalar and only comments the round trip leaves
// where they are (a head comment on a key other than the first of a resource
// or of a sequence item, a line comment on a one-line scalar value or
// element: setter comments, typically) runs on copies of the nodes instead,
// with the rest of kpt's bookkeeping done on the nodes (a built-in runs there
// as builtins.Bare, without the same bookkeeping its Process does for callers
// that do none); kpt's comment copy runs only on the resources whose output
// lost a comment it would restore. A resource with a file's header comment
// goes through a ResourceList of its own, in and out, with kpt's comment
// copy (the round trip moves a header within its resource only). If the
// output has other comments, folded scalars or nodes shared between places,
// the whole output is put through the serialization and kpt's comment copy.
// Exec functions, and inputs with other comments, always go through a
// serialized ResourceList.
// Tests render every corpus package and every comment placement both ways
// and with kpt.
//
// Where it differs from kpt, on purpose:
//
//   - Image functions run as porchbot's built-ins, each as the catalog
//     release its tag names (builtins.Resolve); any other image, or a tag
//     porchbot cannot tie to a release it reproduces, fails the render with
//     an error naming it and saying what porchbot can run. An image without a registry is
//     reported as gcr.io/kpt-fn/<name>, as kpt resolves it.
//   - Exec functions run only when Options.AllowExec is set and the server
//     allowlist (Options.ExecAllowlist) names the program; otherwise the
//     render fails naming the function. Without AllowExec (pull requests
//     from forks) exec functions are skipped, each reported as a skipped step
//     with a warning result; the other functions still run, nothing is
//     written and Render returns an error wrapping ErrIncomplete (kpt would
//     refuse to start without --allow-exec).
//   - A function that cannot be prepared (unsupported, refused, unreadable
//     config) appears in the results with exit code 1 and the reason as an
//     error result; kpt only prints the error.
//   - Only files whose content changes are rewritten (kpt rewrites every file
//     holding a resource; the resulting tree is the same), and every output
//     path is checked before anything is written.
//   - Kptfiles are read with porchbot's one Kptfile model (internal/kptfile):
//     kpt's schema and its refusal of unknown fields, but errors name the file,
//     line and column (under Options.DisplayDir) and no Go type; an old
//     schema (kpt.dev/v1alpha1, v1alpha2) and a missing Kptfile say how to fix
//     them; anchors and aliases are refused in a Kptfile.
//   - A render that fails before, between or after functions has exit code 1
//     in its results.
//   - Inputs are bounded (Options.MaxFiles, MaxBytes, MaxYAMLDepth, and
//     Bounds: YAML nodes counted before parsing, alias expansion measured
//     before anything turns a resource into values). With a Sandbox,
//     starlark and exec functions run in a child process with limits on
//     memory, CPU time, wall time and output (docs/limits.md).
//   - What a function writes to stderr (a starlark program's print) is kept
//     on its Step for every function, and in results.yaml when it fails.
//   - Repository guardrails (Options.ExtraMutators/ExtraValidators) run as if
//     appended to the root package's pipeline.
//   - Functions in process cannot be interrupted; the context is checked
//     between functions (exec and sandboxed functions get it as their
//     process context).
//   - On disk, as with kpt, symlinked files are read through their links;
//     render untrusted trees from an in-memory file system.
package render
