package render

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/porchbot/porchbot/internal/render/builtins"
)

// render-helm-chart reads a chart in the server (from the package, or an
// allowlisted repository) and has it templated in the sandbox: a chart's
// templates are its author's code, which may loop or allocate without end.

// helmTemplater templates render-helm-chart's jobs in the sandbox (nil
// without one: in process).
func (r *renderer) helmTemplater() func([]byte) ([]byte, error) {
	sb := r.opts.Sandbox
	if sb == nil {
		return nil
	}
	return func(job []byte) ([]byte, error) {
		var out bytes.Buffer
		s := &sandboxed{sb: sb, helm: true}
		if _, err := s.runStream(r.ctx, bytes.NewReader(job), &out); err != nil {
			var ee *ExecError
			if errors.As(err, &ee) {
				return nil, errors.New(strings.TrimSpace(ee.Stderr))
			}
			return nil, err
		}
		return out.Bytes(), nil
	}
}

// runHelmJob is the sandbox child templating a chart: the job on stdin,
// Helm's output on stdout, an error on stderr.
func runHelmJob(memory int64, stdin io.Reader, stdout, stderr io.Writer) int {
	debug.SetMemoryLimit(memory * 3 / 4)
	job, err := io.ReadAll(stdin)
	if err == nil {
		var out []byte
		if out, err = builtins.RunHelmJob(job); err == nil {
			_, err = stdout.Write(out)
		}
	}
	if err != nil {
		fmt.Fprint(stderr, err.Error())
		return 1
	}
	return 0
}
