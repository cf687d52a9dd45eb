//go:build !unix

package render

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
