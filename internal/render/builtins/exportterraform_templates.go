package builtins

import (
	"fmt"
	"strings"
)

// The files export-terraform writes beside the resources' HCL, and the
// module version its versions.tf names (the same in every release).

// tfReadme is the README.md the release writes, line by line.
var tfReadme = strings.Join([]string{
	"# Google Cloud Foundation Blueprint",
	"",
	"This directory contains Terraform configuration for a foundational environment on Google Cloud.",
	"",
	"It includes a subset of resources configured via the [setup checklist](https://cloud.google.com/docs/enterprise/setup-checklist)",
	"and is based on the [security foundations blueprint](https://cloud.google.com/architecture/security-foundations).",
	"",
	"## Prerequisites",
	"",
	"To run the commands described in this document, you need the following:",
	"",
	"1. Install the [Google Cloud SDK](https://cloud.google.com/sdk/install) version 319.0.0 or later",
	"1. Install [Terraform](https://www.terraform.io/downloads.html) version 0.13.7 or later.",
	"1. Set up a Google Cloud",
	"   [organization](https://cloud.google.com/resource-manager/docs/creating-managing-organization).",
	"1. Set up a Google Cloud",
	"   [billing account](https://cloud.google.com/billing/docs/how-to/manage-billing-account).",
	"1. For the user who will run the Terraform install, grant the",
	"   following roles:",
	"   -  The `roles/billing.admin` role on the billing account.",
	"   -  The `roles/resourcemanager.organizationAdmin` role on the Google",
	"      Cloud organization.",
	"   -  The `roles/resourcemanager.folderCreator` role on the Google",
	"      Cloud organization.",
	"   -  The `roles/resourcemanager.projectCreator` role on the Google",
	"      Cloud organization.",
	"",
	"## Deploying",
	"",
	"1. Run `terraform init`.",
	"1. Run `terraform plan` and review the output.",
	"1. Run `terraform apply`.",
	"",
	"## Next steps",
	"",
	"Once you have the basic foundation deployed, you should explore:",
	"1. Building an [advanced foundation](https://github.com/terraform-google-modules/terraform-example-foundation) using the security blueprint",
	"2. Automatically deploying Terraform with [Cloud Build](https://cloud.google.com/architecture/managing-infrastructure-as-code)",
}, "\n")

// tfVersions is the versions.tf the release writes.
const tfVersions = `terraform {
  required_version = ">=0.13"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = ">= 4.0.0"
    }
  }
  provider_meta "google" {
    module_name = "blueprints/terraform/exported-krm/v0.1.0"
  }
}
`

// variablesTF declares the model's variables, with their values as defaults.
func (m *tfModel) variablesTF() string {
	var b strings.Builder
	for _, v := range m.variables {
		fmt.Fprintf(&b, "\nvariable \"%s\" {\n  description = \"%s\"\n  type        = string\n  default     = \"%s\"\n}\n",
			v.name, v.description, v.value)
	}
	return b.String()
}
