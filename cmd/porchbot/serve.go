package main

import (
	"context"
	"io"
	"os"

	"github.com/porchbot/porchbot/bot/service"
	"github.com/porchbot/porchbot/internal/settings"
)

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			_, err := io.WriteString(stdout, settings.Usage())
			return err
		}
	}
	s, err := settings.Parse(args, os.Getenv)
	if err != nil {
		return err
	}
	// The log on standard error; the embedded mode's welcome text alone on
	// standard output.
	log, err := newLogger(s.LogLevel, s.LogFormat, stderr)
	if err != nil {
		return err
	}
	srv, err := service.Start(ctx, s, log, stdout, versionString())
	if err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("shutting down: draining the event queue")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.ShutdownTimeout)
	defer cancel()
	return srv.Close(shutdownCtx)
}
