package builtins

import (
	"encoding/json"
	"fmt"

	"helm.sh/helm/v3/pkg/chart/loader"
)

// A helmJob is one chart to template, whole: its files, the values files
// Helm reads and the options. The render engine may have it templated in
// its sandbox (ChartSources.Template), since the templates are the chart
// author's code; RunHelmJob templates it.
type helmJob struct {
	Files  []*loader.BufferedFile
	Values [][]byte
	Chart  helmChart
	Kube   string
}

// RunHelmJob templates a job (as ChartSources.Template gets it) into
// Helm's output: what the sandbox child runs.
func RunHelmJob(job []byte) ([]byte, error) {
	var j helmJob
	if err := json.Unmarshal(job, &j); err != nil {
		return nil, fmt.Errorf("reading the chart to template: %w", err)
	}
	out, err := j.run()
	return []byte(out), err
}

func (j *helmJob) run() (string, error) {
	vals, err := readHelmValues(j.Values)
	if err != nil {
		return "", err
	}
	return j.Chart.helmTemplate(j.Files, vals, j.Kube)
}

// template templates the job where the render engine says (in process
// when it says nothing).
func (h *renderHelmChart) template(j *helmJob) (string, error) {
	if h.src.Template == nil {
		return j.run()
	}
	b, err := json.Marshal(j)
	if err != nil {
		return "", err
	}
	out, err := h.src.Template(b)
	return string(out), err
}
