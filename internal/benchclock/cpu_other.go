//go:build !unix

package benchclock

import "time"

// CPU is not measured here.
func CPU() time.Duration { return 0 }
