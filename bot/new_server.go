package bot

import (
	"github.com/porchbot/porchbot/bot/handlers"
	"github.com/porchbot/porchbot/bot/ingress"
)

// NewServer returns the webhook ingress configured by opts, not started,
// handling handlers.DefaultHandlers when opts.Handlers is nil (a non-nil
// empty map handles nothing). The ingress itself knows no handler: see package
// ingress.
func NewServer(opts ingress.Options) (*ingress.Server, error) {
	if opts.Handlers == nil {
		opts.Handlers = handlers.DefaultHandlers()
	}
	return ingress.NewServer(opts)
}
