package rendercheck

import "context"

// SetRenderStarted sets the hook called as each render starts and returns
// the function that removes it (tests: a render that never finishes plays
// a process that died mid-render).
func SetRenderStarted(f func(ctx context.Context, dir string)) (restore func()) {
	old := renderStarted
	renderStarted = f
	return func() { renderStarted = old }
}
