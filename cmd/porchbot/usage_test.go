package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
)

// TestUsageExitCodes: asking for help is no error (usage on standard
// output, 0); no command, or an unknown one, is a usage error (usage on
// standard error, 2), as flag parsing errors are.
func TestUsageExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   bool // where the usage went
		errMessage string
	}{
		{args: nil, code: 2, err: true, errMessage: "no command given"},
		{args: []string{"help"}, code: 0, out: true},
		{args: []string{"--help"}, code: 0, out: true},
		{args: []string{"rendr"}, code: 2, err: true, errMessage: `did you mean "render"`},
	} {
		var out, errb bytes.Buffer
		code := run(context.Background(), tc.args, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		if code != tc.code || strings.Contains(out.String(), "Commands:") != tc.out ||
			strings.Contains(errb.String(), "Commands:") != tc.err || !strings.Contains(errb.String(), tc.errMessage) {
			t.Errorf("porchbot %v: exit %d\nstdout:\n%s\nstderr:\n%s", tc.args, code, out.String(), errb.String())
		}
	}
}

// TestHelpWritesFlagsOneWay: a command's help names its flags as README
// and porchbot's messages do, "--allow-exec", never "-allow-exec".
func TestHelpWritesFlagsOneWay(t *testing.T) {
	for _, cmd := range []string{"render", "serve", "update", "merge3", "index", "demo", "fn"} {
		var out, errb bytes.Buffer
		run(context.Background(), []string{cmd, "--help"}, stdio{in: strings.NewReader(""), out: &out, err: &errb})
		help := out.String() + errb.String()
		for _, line := range strings.Split(help, "\n") {
			if strings.HasPrefix(line, "  -") && !strings.HasPrefix(line, "  --") && len(strings.Fields(line)[0]) > 2 {
				t.Errorf("porchbot %s --help: %q", cmd, line)
			}
		}
	}
	var out bytes.Buffer
	run(context.Background(), []string{"render", "--help"}, stdio{in: strings.NewReader(""), out: &out, err: &out})
	if !strings.Contains(out.String(), "\n  --allow-exec\n") {
		t.Errorf("porchbot render --help:\n%s", out.String())
	}
}

// TestServeWritesTheWelcomeApartFromTheLog: in the embedded mode the
// welcome text is all that goes to standard output; the log (JSON) goes
// to standard error.
func TestServeWritesTheWelcomeApartFromTheLog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var errb syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, []string{"--listen", "127.0.0.1:0", "--forge-listen", "127.0.0.1:0", "--data-dir", t.TempDir(),
			"--forge-seed", "../../testdata/forge/seed.yaml", "--resync-interval", "0", "--log-format", "json"}, outW, &errb)
		outW.Close()
	}()
	first, err := bufio.NewReader(outR).ReadString('\n') // the welcome text has started
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	rest, _ := io.ReadAll(outR)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	out := first + string(rest)
	if strings.Contains(out, `"level"`) {
		t.Errorf("log lines on standard output:\n%s", out)
	}
	if !strings.Contains(errb.String(), `"level":"info"`) {
		t.Errorf("no JSON log on standard error:\n%s", errb.String())
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
