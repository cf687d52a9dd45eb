//go:build unix

package render

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
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

// crashedNearMemoryLimit reports a child that died of a memory fault
// (SIGSEGV or SIGBUS, or a Go runtime's "unexpected signal") after its
// resident memory reached half its memory limit: under RLIMIT_DATA an
// allocation that fails inside a runtime can surface as such a crash rather
// than as an out-of-memory message, and it is the limit that ended it.
func crashedNearMemoryLimit(ps *os.ProcessState, stderr string, limit int64) bool {
	if ps == nil || limit <= 0 {
		return false
	}
	crashed := strings.Contains(stderr, "unexpected signal during runtime execution") ||
		strings.Contains(stderr, "signal SIGSEGV") || strings.Contains(stderr, "signal SIGBUS")
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		crashed = crashed || ws.Signal() == syscall.SIGSEGV || ws.Signal() == syscall.SIGBUS
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !crashed || !ok {
		return false
	}
	rss := int64(ru.Maxrss) // bytes on macOS, kilobytes elsewhere
	if runtime.GOOS != "darwin" {
		rss *= 1024
	}
	return rss >= limit/2
}

// ownGroup makes cmd's process lead a process group of its own, which a
// cancelled context kills whole.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of cmd's process group once cmd ended: the
// processes a function started and did not wait for.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil && cmd.SysProcAttr != nil && cmd.SysProcAttr.Setpgid {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killedForCPU reports a child the kernel stopped at its CPU limit: killed
// by SIGKILL (the hard RLIMIT_CPU) or SIGXCPU (the soft one) after using at
// least half the limit. The CPU time wait4 reports is sampled and can fall
// short of the limit the kernel enforced, most on a loaded machine, so the
// signal, not the figure alone, tells.
func killedForCPU(ps *os.ProcessState, limit time.Duration) bool {
	if ps == nil || limit <= 0 {
		return false
	}
	ws, ok := ps.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || (ws.Signal() != syscall.SIGKILL && ws.Signal() != syscall.SIGXCPU) {
		return false
	}
	return ps.UserTime()+ps.SystemTime() >= limit/2
}
