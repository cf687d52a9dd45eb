// Package logfields carries log fields in a context.Context, so that what a
// webhook delivery sets off — lifecycle sessions, the git cache, other
// repositories' sessions — logs the delivery's id on every line without a
// logger passed down through each call.
package logfields

import (
	"context"

	"github.com/sirupsen/logrus"
)

type key struct{}

// With returns ctx carrying fields on top of those it carries already.
func With(ctx context.Context, fields logrus.Fields) context.Context {
	merged := logrus.Fields{}
	for k, v := range From(ctx) {
		merged[k] = v
	}
	for k, v := range fields {
		merged[k] = v
	}
	return context.WithValue(ctx, key{}, merged)
}

// From returns the fields ctx carries (nil: none). Do not modify them.
func From(ctx context.Context) logrus.Fields {
	f, _ := ctx.Value(key{}).(logrus.Fields)
	return f
}

// Apply adds the fields ctx carries to log.
func Apply(ctx context.Context, log logrus.FieldLogger) logrus.FieldLogger {
	if f := From(ctx); len(f) > 0 {
		return log.WithFields(f)
	}
	return log
}
