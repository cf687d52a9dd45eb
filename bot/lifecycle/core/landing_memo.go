package core

import (
	"maps"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// LandingMemo is what landing walkers found, by hash: package states by
// commit and directory, changed directories by pair of trees and packages
// root. Safe for concurrent use; the zero value is ready. Bounded by
// landingMemoMax entries of each kind: a full memo starts over.
type LandingMemo struct {
	mu      sync.Mutex
	states  map[landingStateKey]LandingState
	changed map[changedKey]map[string]bool
}

const landingMemoMax = 1 << 14

type changedKey struct {
	a, b plumbing.Hash
	root string
}

func (m *LandingMemo) state(k landingStateKey) (LandingState, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.states[k]
	return st, ok
}

func (m *LandingMemo) keepState(k landingStateKey, st LandingState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.states == nil || len(m.states) >= landingMemoMax {
		m.states = map[landingStateKey]LandingState{}
	}
	m.states[k] = st
}

// changedDirs are the directories remembered for k, as a copy.
func (m *LandingMemo) changedDirs(k changedKey) (map[string]bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	dirs, ok := m.changed[k]
	if !ok {
		return nil, false
	}
	return maps.Clone(dirs), true
}

func (m *LandingMemo) keepChangedDirs(k changedKey, dirs map[string]bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.changed == nil || len(m.changed) >= landingMemoMax/4 {
		m.changed = map[changedKey]map[string]bool{}
	}
	m.changed[k] = maps.Clone(dirs)
}
