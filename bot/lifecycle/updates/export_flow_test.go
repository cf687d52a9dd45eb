package updates

// The flow rule's history walk (flow_check.go).
var UpstreamSetAt = upstreamSetAt
