//go:build unix

package render

import (
	"os/exec"
	"testing"
)

// A child that dies of a memory fault counts as over its memory limit only
// when its resident memory had reached half the limit.
func TestCrashedNearMemoryLimit(t *testing.T) {
	cmd := exec.Command("sh", "-c", "kill -SEGV $$")
	if err := cmd.Run(); err == nil {
		t.Fatal("the child should have died of SIGSEGV")
	}
	if !crashedNearMemoryLimit(cmd.ProcessState, "", 64<<10) {
		t.Error("a SIGSEGV with resident memory past half the limit is the memory limit")
	}
	if crashedNearMemoryLimit(cmd.ProcessState, "", 64<<30) {
		t.Error("a SIGSEGV far below the limit is not the memory limit")
	}
	ok := exec.Command("true")
	if err := ok.Run(); err != nil {
		t.Fatal(err)
	}
	if crashedNearMemoryLimit(ok.ProcessState, "", 64<<10) {
		t.Error("a clean exit is no crash")
	}
	if !crashedNearMemoryLimit(ok.ProcessState, "fatal error: unexpected signal during runtime execution", 64<<10) {
		t.Error("a Go runtime's unexpected signal is a crash")
	}
}
