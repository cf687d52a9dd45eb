package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sirupsen/logrus"
	"golang.org/x/term"
)

// newLogger logs as JSON unless format is text, or auto and out is a terminal.
func newLogger(level, format string, out io.Writer) (*logrus.Logger, error) {
	lvl, err := logrus.ParseLevel(level)
	if err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	l := logrus.New()
	l.SetOutput(out)
	l.SetLevel(lvl)
	text := format == "text"
	if format == "auto" {
		if f, ok := out.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			text = true
		}
	}
	if text {
		l.SetFormatter(&logrus.TextFormatter{FullTimestamp: true})
	} else {
		l.SetFormatter(&logrus.JSONFormatter{})
	}
	return l, nil
}
