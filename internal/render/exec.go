package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/porchbot/porchbot/internal/shellwords"
)

// splitCommand splits an exec line into program and arguments as kpt does
// (google/shlex's rules; # starts a comment at the start of a word).
func splitCommand(s string) ([]string, error) {
	return shellwords.Split(s, shellwords.Options{Comments: true, Shlex: true})
}

// ExecError is a function program that exited non-zero.
type ExecError struct {
	ExitCode int
	Stderr   string
	Err      error
}

func (e *ExecError) Error() string {
	return fmt.Sprintf("exit status %d: %s", e.ExitCode, strings.TrimSpace(e.Stderr))
}

func (e *ExecError) Unwrap() error { return e.Err }

// ExecFunction runs a KRM function program: the ResourceList on stdin, the
// resulting ResourceList on stdout, as kpt's exec runtime does.
type ExecFunction struct {
	Path string
	Args []string
	// MaxStderr caps the stderr kept (default 64 KiB).
	MaxStderr int
}

// NewExecFunction splits an exec line into an ExecFunction.
func NewExecFunction(line string) (*ExecFunction, error) {
	args, err := splitCommand(line)
	if err != nil {
		return nil, fmt.Errorf("exec command %q must be valid: %w", line, err)
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("exec command %q is empty", line)
	}
	return &ExecFunction{Path: args[0], Args: args[1:]}, nil
}

// RunStream runs the program on a serialized ResourceList.
func (f *ExecFunction) RunStream(ctx context.Context, in io.Reader, out io.Writer) error {
	_, err := f.runStream(ctx, in, out)
	return err
}

// runStream is RunStream that also returns what the program wrote to
// stderr.
func (f *ExecFunction) runStream(ctx context.Context, in io.Reader, out io.Writer) (string, error) {
	limit := f.MaxStderr
	if limit <= 0 {
		limit = 64 << 10
	}
	stderr := &capWriter{max: limit}
	cmd := exec.CommandContext(ctx, f.Path, f.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return stderr.String(), &ExecError{ExitCode: ee.ExitCode(), Stderr: stderr.String(), Err: err}
		}
		return stderr.String(), &ExecError{ExitCode: 1, Stderr: err.Error(), Err: err}
	}
	return stderr.String(), nil
}

// Process implements framework.ResourceListProcessor by a round trip
// through the program (the render engine calls RunStream directly).
func (f *ExecFunction) Process(rl *framework.ResourceList) error {
	return processByStream(f, rl)
}

// processByStream runs a ResourceList through a streamRunner.
func processByStream(f streamRunner, rl *framework.ResourceList) error {
	var in, out bytes.Buffer
	if err := (kio.ByteWriter{Writer: &in, KeepReaderAnnotations: true, FunctionConfig: rl.FunctionConfig,
		WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}).Write(rl.Items); err != nil {
		return err
	}
	runErr := f.RunStream(context.Background(), &in, &out)
	r := &kio.ByteReader{Reader: &out}
	items, err := r.Read()
	if err != nil {
		return err
	}
	rl.Items = items
	if r.Results != nil {
		var res framework.Results
		if err := yaml.Unmarshal([]byte(r.Results.MustString()), &res); err == nil {
			rl.Results = append(rl.Results, res...)
		}
	}
	return runErr
}

type capWriter struct {
	buf bytes.Buffer
	max int
}

func (w *capWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		if len(p) > room {
			w.buf.Write(p[:room])
		} else {
			w.buf.Write(p)
		}
	}
	return len(p), nil
}

func (w *capWriter) String() string { return w.buf.String() }

// streamRunner is implemented by functions that consume the serialized
// ResourceList themselves (subprocesses).
type streamRunner interface {
	RunStream(ctx context.Context, in io.Reader, out io.Writer) error
}

// stderrRunner is a streamRunner that also returns the program's stderr,
// which kpt shows for every function and records when it fails.
type stderrRunner interface {
	runStream(ctx context.Context, in io.Reader, out io.Writer) (stderr string, err error)
}
