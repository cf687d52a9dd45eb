package lifecycle_test

import (
	"testing"

	"github.com/porchbot/porchbot/bot/lifecycle/lifecycletest"
)

// harness is the lifecycle tests' rig (lifecycletest.Rig: a local forge
// with the standard cast and the bot's real clients); test files add their
// own helpers to it.
type harness struct{ *lifecycletest.Rig }

func newHarness(t *testing.T) *harness { return &harness{lifecycletest.New(t)} }
