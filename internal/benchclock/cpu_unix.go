//go:build unix

package benchclock

import (
	"syscall"
	"time"
)

// CPU is the CPU time (user and system) this process has used so far, the
// collector and every goroutine included.
func CPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
