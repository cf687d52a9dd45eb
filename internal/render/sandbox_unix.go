//go:build unix

package render

import (
	"fmt"
	"os/exec"
	"syscall"
)

// setLimits lowers the process's writable memory and CPU time, soft and
// hard limits alike (at the hard CPU limit the kernel kills the process).
func setLimits(memory, cpuSeconds int64) error {
	if memory > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(memory), Max: uint64(memory)}); err != nil {
			return fmt.Errorf("memory limit: %w", err)
		}
	}
	if cpuSeconds > 0 {
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: uint64(cpuSeconds), Max: uint64(cpuSeconds)}); err != nil {
			return fmt.Errorf("CPU limit: %w", err)
		}
	}
	return nil
}

// replaceWith replaces the process with the program; it returns only on
// failure.
func replaceWith(argv []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	return syscall.Exec(path, argv, syscall.Environ())
}
