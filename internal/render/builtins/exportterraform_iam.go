package builtins

import (
	"fmt"
	"sort"
)

// iam.tf: the IAM bindings of the organizations, then of the folders (a
// module of terraform-google-modules/iam each), then (from v0.2.0) the
// organization's audit configs.

// tfIAMBinding is a binding of an IAMPolicy or IAMPartialPolicy as the
// release decodes it: members are objects with a member field.
type tfIAMBinding struct {
	Role    string `yaml:"role"`
	Members []*struct {
		Member string `yaml:"member"`
	} `yaml:"members"`
}

// tfAuditLogConfig is an entry of an IAMAuditConfig's auditLogConfigs.
type tfAuditLogConfig struct {
	ExemptedMembers []string `yaml:"exemptedMembers"`
	LogType         string   `yaml:"logType"`
}

func writeTFIAM(h *tfHCL) {
	for _, org := range h.m.byKind["Organization"] {
		h.iamModule(org, tfSite{"iam.tf", "1:41", "$ref.HasIAMBindings"}, "organizations_iam", "organizations = [\""+org.name+"\"]")
	}
	for _, folder := range h.m.byKind["Folder"] {
		h.iamModule(folder, tfSite{"iam.tf", "17:49", "$ref.HasIAMBindings"}, "folders_iam", "folders = ["+h.m.tfID(folder, true)+"]")
	}
	if h.m.release == tfV010 {
		return
	}
	for _, audit := range h.m.byKind["IAMAuditConfig"] {
		if h.failed() {
			return
		}
		h.auditConfig(audit)
	}
}

// iamModule writes the module binding r's roles, if it has any.
func (h *tfHCL) iamModule(r *tfResource, site tfSite, module, target string) {
	if h.failed() {
		return
	}
	if len(h.bindings(r, site)) == 0 || h.failed() {
		return
	}
	// the template reads the bindings again to write them
	bindings := h.bindings(r, site)
	h.write("\nmodule \"", h.name(r), "-iam\" {\n  source  = \"terraform-google-modules/iam/google//modules/", module,
		"\"\n  version = \"~> 7.4\"\n\n  ", target, "\n\n  bindings = {\n    ")
	roles := make([]string, 0, len(bindings))
	for role := range bindings {
		roles = append(roles, role)
	}
	sort.Strings(roles)
	for _, role := range roles {
		h.write("\n    \"", role, "\" = [")
		for _, member := range bindings[role] {
			h.write("\n      \"", member, "\",")
		}
		h.write("\n    ]\n    ")
	}
	h.write("\n  }\n}\n\n")
}

// bindings are the members of each role that r's IAMPolicyMember,
// IAMPartialPolicy and IAMPolicy children grant, in order. A policy
// without bindings is said on stderr and skipped; a null member fails the
// template at site.
func (h *tfHCL) bindings(r *tfResource, site tfSite) map[string][]string {
	out := map[string][]string{}
	for _, c := range r.children {
		switch c.kind {
		case "IAMPolicyMember":
			role := c.fields.str("spec", "role")
			out[role] = append(out[role], c.fields.str("spec", "member"))
		case "IAMPartialPolicy", "IAMPolicy":
			var bs []tfIAMBinding
			found, err := c.fields.list(&bs, "*[]terraformgenerator.iamBinding", "spec", "bindings")
			if !found || err != nil {
				fmt.Fprintf(h.m.stderr, "Failure to find bindings in %s (found = %t): %s\n", r.name, found, sdkErrorText(err))
				continue
			}
			for _, b := range bs {
				for _, m := range b.Members {
					if m == nil {
						h.fail(site, "HasIAMBindings", nilDereference)
						return nil
					}
					out[b.Role] = append(out[b.Role], m.Member)
				}
			}
		}
	}
	return out
}

// auditConfig writes the organization's audit config r.
func (h *tfHCL) auditConfig(r *tfResource) {
	if r.parent == nil {
		h.fail(tfSite{"iam.tf", "35:19", "$ref.Parent.GetTerraformId"}, "GetTerraformId", nilDereference)
		return
	}
	h.write("\nresource \"google_organization_iam_audit_config\" \"org_config\" {\n  org_id  = ", h.m.tfID(r.parent, false),
		"\n  service = \"", r.fields.str("spec", "service"), "\"\n")
	var configs []tfAuditLogConfig
	h.listOrSay(r, &configs, "*[]terraformgenerator.iamAuditLogConfig", "auditLogConfigs", "spec", "auditLogConfigs")
	for _, c := range configs {
		h.write("\n  audit_log_config {\n      log_type = \"", c.LogType, "\"")
		h.writeList(c.ExemptedMembers, "\n      exempted_members = [", "\n      \"", "\"", "\n      ]")
		h.write("\n  }")
	}
	h.write("\n}\n")
}
