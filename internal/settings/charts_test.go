package settings

import (
	"strings"
	"testing"
)

// The chart repository allowlist comes from --chart-repositories or
// PORCHBOT_CHART_REPOSITORIES, and a bad entry is refused naming its source.
func TestChartRepositories(t *testing.T) {
	s, err := Parse(nil, env(map[string]string{"PORCHBOT_CHART_REPOSITORIES": "https://charts.example/stable, http://10.0.0.5:8080/charts/"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.ChartRepositories) != 2 || s.ChartRepos() == nil {
		t.Errorf("ChartRepositories %q, ChartRepos %v", s.ChartRepositories, s.ChartRepos())
	}
	if s, err := Parse(nil, env(nil)); err != nil || s.ChartRepos() != nil {
		t.Errorf("no allowlist: %v, %v", err, s.ChartRepos())
	}
	_, err = Parse([]string{"--chart-repositories", "charts.example/stable"}, env(nil))
	if err == nil || !strings.Contains(err.Error(), "chart-repositories") || !strings.Contains(err.Error(), "http or https") {
		t.Errorf("a URL without a scheme: got %v", err)
	}
}
