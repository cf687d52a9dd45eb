//go:build !unix

package render

import (
	"errors"
	"os"
	"os/exec"
	"time"
)

var errNoSandbox = errors.New("function limits need a unix system")

func setLimits(memory, cpuSeconds int64) error { return errNoSandbox }

func replaceWith(argv []string) error { return errNoSandbox }

func crashedNearMemoryLimit(ps *os.ProcessState, stderr string, limit int64) bool { return false }

func killedForCPU(ps *os.ProcessState, limit time.Duration) bool { return false }

func ownGroup(cmd *exec.Cmd) {}

func killGroup(cmd *exec.Cmd) {}
