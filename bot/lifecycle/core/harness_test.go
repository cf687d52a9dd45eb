package core_test

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
)

// harness is the core tests' rig (lifecycletest.Rig).
type harness struct{ *lifecycletest.Rig }

func newHarness(t *testing.T) *harness { return &harness{lifecycletest.New(t)} }
