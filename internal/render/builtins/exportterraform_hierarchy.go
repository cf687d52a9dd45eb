package builtins

import "sigs.k8s.io/kustomize/kyaml/yaml"

// folders.tf and projects.tf: the package's folders (google_folder
// resources) and projects (modules of terraform-google-modules'
// project-factory).

func writeTFFolders(h *tfHCL) {
	for _, f := range h.m.byKind["Folder"] {
		if !f.created() {
			continue
		}
		if f.parent == nil {
			h.fail(tfSite{"folders.tf", "4:27", "$folder.Parent.GetTerraformId"}, "GetTerraformId", nilDereference)
			return
		}
		h.write("\nresource \"google_folder\" \"", h.name(f), "\" {\n  display_name = \"", f.displayName(),
			"\"\n  parent       = ", h.m.tfID(f.parent, true), "\n}\n")
	}
}

func writeTFProjects(h *tfHCL) {
	for _, p := range h.m.byKind["Project"] {
		if !p.created() {
			continue
		}
		name, display := h.name(p), p.displayName()
		h.write("\nmodule \"", name, "\" {\n  source  = \"terraform-google-modules/project-factory/google\"\n",
			"  version = \"~> 12.0\"\n\n  name       = \"", display, "\"")
		if display != name {
			h.write("\n  project_id = \"", name, "\"")
		}
		org := h.orgID(p, tfSite{"projects.tf", "8:26", "$project.GetOrganization.GetTerraformId"})
		if h.failed() {
			return
		}
		h.write("\n  org_id     = ", org)
		if p.parent.kind == "Folder" {
			h.write("\n  folder_id  = ", h.m.tfID(p.parent, false))
		}
		h.write("\n")
		if h.m.release == tfV030 && isSharedVPCHost(p) {
			h.write("\n  enable_shared_vpc_host_project = true")
		}
		billing := noValue
		if b := p.refs["BillingAccount"]; b != nil {
			billing = h.m.tfID(b, false)
		}
		h.write("\n  billing_account = ", billing)
		if p.fields.boolean(h.m.release, yaml.MetadataField, yaml.AnnotationsField, "cnrm.cloud.google.com/auto-create-network") {
			h.write("\n  auto_create_network = true")
		}
		h.write("\n}\n")
	}
}

// isSharedVPCHost reports whether a ComputeSharedVPCHostProject child of
// project p names it (v0.3.0).
func isSharedVPCHost(p *tfResource) bool {
	id, ok := p.fields.scalar(yaml.NodeTagString, yaml.MetadataField, yaml.NameField)
	if !ok {
		return false
	}
	for _, c := range childrenOf(p, "ComputeSharedVPCHostProject") {
		if host, ok := c.fields.scalar(yaml.NodeTagString, yaml.MetadataField, yaml.AnnotationsField, projectIDAnnotation); ok && host == id {
			return true
		}
	}
	return false
}
