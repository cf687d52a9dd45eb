package builtins

import (
	"errors"
	"io"
	"slices"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// export-terraform (catalog v0.1.0–v0.3.0, on the catalog's copy of the
// functions SDK of January 2022) turns the package's Config Connector
// resources into Terraform: the ConfigMap terraform (terraform.yaml, local
// config) whose data are the files folders.tf, iam.tf, projects.tf and,
// from v0.2.0, log-export.tf and network.tf, each left out when empty, and
// with them README.md, versions.tf and variables.tf. A package already
// holding that ConfigMap keeps it as it is.
//
// It reads the resources of a cnrm.cloud.google.com API (but those
// annotated cnrm.cloud.google.com/ignore-clusterless: "true") of the kinds
// its release knows, and everything they name (parents, billing accounts,
// networks, destinations). The releases differ:
//
//   - v0.1.0 knows folders, organizations, projects and IAM policies and
//     members; it takes no project annotation for a parent, and reads a
//     bool field (auto-create-network) as the string "true";
//   - v0.2.0 adds log sinks and their destinations, audit configs, and
//     networks with their subnets, firewalls, routers, NATs, addresses and
//     service networking; a bool field is then a YAML bool;
//   - v0.3.0 adds routes to the network module, and marks a project that a
//     ComputeSharedVPCHostProject names as a shared VPC host.
//
// A template that meets a missing parent or organization fails with an
// error result, and the function still exits 0, the package left as it
// was. What the release says on stderr along the way (a policy without
// bindings, a firewall without allow...) goes to stderr.
type tfRelease int

const (
	tfV010 tfRelease = iota
	tfV020
	tfV030
)

// exportTerraform is export-terraform at one release.
type exportTerraform struct {
	*kptFunction
	release tfRelease
	stderr  io.Writer
}

// UseStderr implements StderrUser.
func (e *exportTerraform) UseStderr(w io.Writer) { e.stderr = w }

func exportTerraformReleases() []release {
	at := func(v tfRelease) func() Function {
		return func() Function {
			e := &exportTerraform{release: v, stderr: io.Discard}
			e.kptFunction = &kptFunction{fn: e.process, unreconciled: true} // its SDK writes the items as they are
			return e
		}
	}
	return []release{{version: "v0.1.0", new: at(tfV010)}, {version: "v0.2.0", new: at(tfV020)},
		{version: "v0.3.0", new: at(tfV030)}}
}

// kinds are the kinds a release reads.
func (v tfRelease) kinds() []string {
	kinds := []string{"Folder", "Organization", "IAMPolicyMember", "IAMPartialPolicy", "IAMPolicy", "Project"}
	if v == tfV010 {
		return kinds
	}
	kinds = append(kinds, "LoggingLogSink", "BigQueryDataset", "PubSubTopic", "StorageBucket", "IAMAuditConfig",
		"ComputeNetwork", "ComputeSubnetwork", "ComputeRouter", "ComputeRouterNAT", "ComputeAddress",
		"ServiceNetworkingConnection", "ComputeFirewall", "LoggingLogBucket")
	if v == tfV020 {
		return kinds
	}
	return append(kinds, "ComputeRoute", "ComputeSharedVPCHostProject")
}

func (e *exportTerraform) process(rl *framework.ResourceList) error {
	data, err := e.terraform(rl.Items)
	if errors.As(err, new(tfRefusal)) {
		return err
	}
	if err == nil {
		items, cerr := addTerraformConfigMap(rl.Items, data)
		if cerr != nil {
			return cerr
		}
		rl.Items = items
	} else {
		// a template's failure: an error result, and the function exits 0
		rl.Results = append(rl.Results, errorResult(err))
	}
	// its SDK writes the items sorted, whatever happened
	sort.Sort(bySDKIdentifier(rl.Items))
	return nil
}

// tfRefusal is an input porchbot refuses to convert, the release's
// behaviour on it not being reproduced.
type tfRefusal struct{ error }

func (r tfRefusal) Unwrap() error { return r.error }

// terraform is the ConfigMap's data for the items.
func (e *exportTerraform) terraform(items []*yaml.RNode) (map[string]string, error) {
	m := newTFModel(e.release, e.stderr)
	kinds := e.release.kinds()
	for _, it := range items {
		f := tfFields{node: it.YNode(), refused: &m.refused}
		// its SDK reads every item's identity (to add the ConfigMap, and
		// to sort the items)
		for _, p := range [][]string{{yaml.APIVersionField}, {yaml.KindField},
			{yaml.MetadataField, yaml.NamespaceField}, {yaml.MetadataField, yaml.NameField}} {
			_, _, _ = f.walk(p...)
		}
		if !strings.Contains(f.str(yaml.APIVersionField), "cnrm.cloud.google.com") ||
			f.str(yaml.MetadataField, yaml.AnnotationsField, "cnrm.cloud.google.com/ignore-clusterless") == "true" {
			continue
		}
		if kind := f.str(yaml.KindField); slices.Contains(kinds, kind) {
			m.read(kind, strings.TrimSpace(f.str(yaml.MetadataField, yaml.NameField)), it.YNode())
		}
		if m.refused != nil {
			return nil, tfRefusal{m.refused}
		}
	}
	m.group()
	data, err := m.terraformFiles()
	if m.refused != nil {
		return nil, tfRefusal{m.refused}
	}
	return data, err
}
