package builtins

import (
	"fmt"
	"strconv"
	"strings"
)

// network.tf (from v0.2.0): each ComputeNetwork of the package, a module of
// terraform-google-modules/network with its subnets (and from v0.3.0 its
// routes), then its firewall rules, its routers with their NATs and the
// NATs' addresses, and its service networking connections with their
// global addresses. Everything is in the project the network names.

// tfFirewallAllow is an entry of a ComputeFirewall's allow list.
type tfFirewallAllow struct {
	Ports    []string `yaml:"ports"`
	Protocol string   `yaml:"protocol"`
}

func writeTFNetwork(h *tfHCL) {
	for _, vpc := range h.m.byKind["ComputeNetwork"] {
		if h.failed() {
			return
		}
		if !vpc.created() {
			continue
		}
		name := h.name(vpc)
		h.write("\n# VPC and Subnets\nmodule \"", name, "\" {\n    source  = \"terraform-google-modules/network/google\"\n",
			"    version = \"~> 5.0\"\n\n    project_id   = module.")
		project := h.parentName(vpc, tfSite{"network.tf", "7:36", ".Parent.GetResourceName"})
		if h.failed() {
			return
		}
		h.write(project, ".project_id\n    network_name = \"", name, "\"")
		if mode := vpc.fields.str("spec", "routingMode"); mode != "" {
			h.write("\n    routing_mode = \"", mode, "\"")
		}
		if desc := vpc.fields.str("spec", "description"); desc != "" {
			h.write("\n    description  = \"", desc, "\"")
		}
		h.write("\n\n    subnets = [\n       ")
		for _, s := range childrenOf(vpc, "ComputeSubnetwork") {
			h.subnet(s)
		}
		h.write("\n    ]")
		if h.m.release == tfV030 {
			h.write("\n    ")
			if routes := childrenOf(vpc, "ComputeRoute"); len(routes) > 0 {
				h.write("\n    routes = [\n      ")
				for _, r := range routes {
					h.route(r)
				}
				h.write("\n    ]")
			}
		}
		h.write("\n}\n# Firewall Rules")
		for _, fw := range childrenOf(vpc, "ComputeFirewall") {
			h.firewall(fw, name, project)
		}
		h.write("\n# NAT Router and config")
		for _, router := range childrenOf(vpc, "ComputeRouter") {
			h.router(router, name, project)
		}
		h.write("\n")
		for _, conn := range childrenOf(vpc, "ServiceNetworkingConnection") {
			h.serviceNetworking(conn, name, project)
		}
	}
}

func (h *tfHCL) subnet(s *tfResource) {
	f := s.fields
	h.write("\n        {\n            subnet_name           = \"", h.name(s), "\"\n            subnet_ip             = \"",
		f.str("spec", "ipCidrRange"), "\"\n            subnet_region         = \"", f.str("spec", "region"), "\"")
	if f.boolean(h.m.release, "spec", "privateIpGoogleAccess") {
		h.write("\n            subnet_private_access = true")
	}
	if interval := f.str("spec", "logConfig", "aggregationInterval"); interval != "" {
		h.write("\n            subnet_flow_logs      = true")
		if sampling := f.float("spec", "logConfig", "flowSampling"); sampling != 0 {
			h.write("\n            subnet_flow_logs_sampling = \"", fmt.Sprint(sampling), "\"")
		}
		if md := f.str("spec", "logConfig", "metadata"); md != "" {
			h.write("\n            subnet_flow_logs_metadata = \"", md, "\"")
		}
		h.write("\n            subnet_flow_logs_interval = \"", interval, "\"")
	}
	h.write("\n        },")
}

func (h *tfHCL) route(r *tfResource) {
	f := r.fields
	h.write("{\n        name = \"", h.name(r), "\"")
	if desc := f.str("spec", "description"); desc != "" {
		h.write("\n        description = \"", desc, "\"")
	}
	if dest := f.str("spec", "destRange"); dest != "" {
		h.write("\n        destination_range = \"", dest, "\"")
	}
	if prio := f.integer("spec", "priority"); prio != 0 {
		h.write("\n        priority = \"", strconv.Itoa(prio), "\"")
	}
	if f.str("spec", "nextHopGateway") == "default-internet-gateway" {
		h.write("\n        next_hop_internet = \"true\"")
	}
	if tags := f.strs("spec", "tags"); len(tags) > 0 {
		h.write("\n        tags = \"", strings.Join(tags, ","), "\"")
	}
	h.write("\n      },")
}

func (h *tfHCL) firewall(fw *tfResource, vpc, project string) {
	f := fw.fields
	name := h.name(fw)
	h.write("\nresource \"google_compute_firewall\" \"", name, "\" {\n  name      = \"", name, "\"\n  network   = module.", vpc,
		".network_name\n  project   = module.", project, ".project_id")
	if dir := f.str("spec", "direction"); dir != "" {
		h.write("\n  direction = \"", dir, "\"")
	}
	if prio := f.integer("spec", "priority"); prio != 0 {
		h.write("\n  priority  = ", strconv.Itoa(prio))
	}
	h.write("\n")
	if f.boolean(h.m.release, "spec", "enableLogging") {
		h.write("\n  log_config {\n      metadata = \"INCLUDE_ALL_METADATA\"\n    }\n")
	}
	var allows []tfFirewallAllow
	h.listOrSay(fw, &allows, "*[]terraformgenerator.firewallAllow", "allowed FW ports/protocol", "spec", "allow")
	for _, a := range allows {
		h.write("\n  allow {\n    protocol = \"", a.Protocol, "\"")
		h.writeList(a.Ports, "\n    ports    = [", `"`, `",`, "]")
		h.write("\n  }\n")
	}
	h.writeList(f.strs("spec", "sourceRanges"), "\n  source_ranges = [", "\n  \"", "\",", "\n  ]")
	h.write("\n}")
}

func (h *tfHCL) router(router *tfResource, vpc, project string) {
	name := h.name(router)
	h.write("\nresource \"google_compute_router\" \"", name, "\" {\n  name    = \"", name, "\"\n  project = module.", project,
		".project_id\n  region  = \"", router.fields.str("spec", "region"), "\"\n  network = module.", vpc, ".network_self_link\n}\n")
	for _, nat := range childrenOf(router, "ComputeRouterNAT") {
		h.routerNAT(nat, name, project)
	}
}

func (h *tfHCL) routerNAT(nat *tfResource, router, project string) {
	f := nat.fields
	name := h.name(nat)
	h.write("\nresource \"google_compute_router_nat\" \"", name, "\" {",
		tfField("name", 35), `"`, name, `"`,
		tfField("project", 35), "module.", project, ".project_id",
		tfField("router", 35), "google_compute_router.", router, ".name",
		tfField("region", 35), `"`, f.str("spec", "region"), `" `)
	if opt := f.str("spec", "natIpAllocateOption"); opt != "" {
		h.write(tfField("nat_ip_allocate_option", 35), `"`, opt, `"`)
	}
	h.write(tfField("nat_ips", 35), "google_compute_address.", h.refName(nat, "ComputeAddress"), ".*.self_link ")
	if ranges := f.str("spec", "sourceSubnetworkIpRangesToNat"); ranges != "" {
		h.write(tfField("source_subnetwork_ip_ranges_to_nat", 35), `"`, ranges, `"`)
	}
	h.write("\n")
	if f.boolean(h.m.release, "spec", "logConfig", "enable") {
		h.write("\n  log_config { ")
		if filter := f.str("spec", "logConfig", "filter"); filter != "" {
			h.write("\n    filter = \"", filter, "\" ")
		}
		h.write("\n    enable = true\n  }")
	}
	h.write("\n}\n")
	if addr := nat.refs["ComputeAddress"]; addr != nil {
		addrName := h.name(addr)
		h.write("\nresource \"google_compute_address\" \"", addrName, "\" {\n  project = module.", project,
			".project_id\n  name    = \"", addrName, "\"\n  region  = \"", addr.fields.str("spec", "location"), "\"\n}")
	}
}

func (h *tfHCL) serviceNetworking(conn *tfResource, vpc, project string) {
	h.write("\n# Service Networking for Cloud SQL & other services\nresource \"google_service_networking_connection\" \"",
		h.name(conn), "\" {\n  network                 = module.", vpc,
		".network_self_link\n  service                 = \"servicenetworking.googleapis.com\"\n",
		"  reserved_peering_ranges = [google_compute_global_address.", h.refName(conn, "ComputeAddress"), ".name]\n}\n")
	addr := conn.refs["ComputeAddress"]
	if addr == nil {
		return
	}
	f := addr.fields
	name := h.name(addr)
	h.write("\nresource \"google_compute_global_address\" \"", name, "\" {", tfField("name", 14), `"`, name, `"`,
		tfField("project", 14), "module.", project, ".project_id")
	if purpose := f.str("spec", "purpose"); purpose != "" {
		h.write(tfField("purpose", 14), `"`, purpose, `" `)
	}
	if t := f.str("spec", "addressType"); t != "" {
		h.write(tfField("address_type", 14), `"`, t, `"`)
	}
	if a := f.str("spec", "address"); a != "" {
		h.write(tfField("address", 14), `"`, a, `"`)
	}
	if n := f.integer("spec", "prefixLength"); n != 0 {
		h.write(tfField("prefix_length", 14), `"`, strconv.Itoa(n), `"`)
	}
	h.write(tfField("network", 14), "module.", vpc, ".network_self_link\n}\n")
}
