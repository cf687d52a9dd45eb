package benchclock

import (
	"fmt"
	"os"
	"strings"
)

// OwnPeakRSS is this process's own peak resident memory in bytes (Linux's
// VmHWM: the program's since it was exec'd, unlike the rusage a parent
// reads, which keeps the parent's peak from the fork), 0 where unknown.
func OwnPeakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kib int64
			if _, err := fmt.Sscanf(v, "%d", &kib); err == nil {
				return kib << 10
			}
		}
	}
	return 0
}
