package commands

import "github.com/porchbot/porchbot/internal/flow"

// DefaultPermissionTTL is how long a commenter's permission answer is
// reused.
const DefaultPermissionTTL = flow.DefaultPermissionTTL

// PermissionCache is the one cache of permission answers (internal/flow):
// commands and the flow rule of clone and upgrade share it, so a command
// that needs write access and carries content in costs one lookup.
type PermissionCache = flow.PermissionCache
