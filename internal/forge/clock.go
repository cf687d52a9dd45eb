package forge

import "time"

// SetClock replaces the forge's clock (Options.Now) while it runs; nil
// restores Options.Now. GitHub dates objects to the second: a test sets
// the clock to put two actions in the same second, or in different ones,
// without waiting.
func (f *Forge) SetClock(now func() time.Time) {
	if now == nil {
		f.clock.Store(nil)
		return
	}
	f.clock.Store(&now)
}

// clockNow is the time on the forge's clock.
func (f *Forge) clockNow() time.Time {
	if c := f.clock.Load(); c != nil {
		return (*c)()
	}
	return f.opts.Now()
}
