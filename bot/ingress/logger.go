package ingress

import (
	"context"
	"sync"

	"github.com/sirupsen/logrus"
)

type loggerKey struct{}

// eventLog builds the logger of one event when first asked for, so that
// handlers that do not log do not pay for it.
type eventLog struct {
	log   *logrus.Logger
	ev    *Event
	once  sync.Once
	entry *logrus.Entry
}

func (l *eventLog) get() *logrus.Entry {
	l.once.Do(func() { l.entry = l.log.WithFields(eventFields(l.ev)) })
	return l.entry
}

// eventFields are the log fields of ev.
func eventFields(ev *Event) logrus.Fields {
	return logrus.Fields{
		"delivery":     ev.DeliveryID,
		"event":        ev.Name,
		"action":       ev.Action,
		"installation": ev.InstallationID,
		"repository":   ev.Repo,
	}
}

// contextWithEventLog returns ctx carrying l, for LoggerFrom.
func contextWithEventLog(ctx context.Context, l *eventLog) context.Context {
	return context.WithValue(ctx, loggerKey{}, l)
}

// LoggerFrom returns the logger carried by ctx. Within a Handler it carries
// the fields delivery, event, action, installation and repository. Outside
// one it is the standard logger.
func LoggerFrom(ctx context.Context) *logrus.Entry {
	if l, ok := ctx.Value(loggerKey{}).(*eventLog); ok {
		return l.get()
	}
	return logrus.NewEntry(logrus.StandardLogger())
}

// DeliveryFrom is the delivery id of the event being handled ("" outside
// a handler).
func DeliveryFrom(ctx context.Context) string {
	if l, ok := ctx.Value(loggerKey{}).(*eventLog); ok {
		return l.ev.DeliveryID
	}
	return ""
}
