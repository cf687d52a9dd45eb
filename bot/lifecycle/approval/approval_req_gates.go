package approval

// unmetGates are the readiness gates whose condition is not True (Kptfile
// info.readinessGates against status.conditions, of every package the
// proposal changes).
func unmetGates(gates []GateStatus) []GateStatus {
	var out []GateStatus
	for _, g := range gates {
		if !g.Met() {
			out = append(out, g)
		}
	}
	return out
}
