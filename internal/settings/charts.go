package settings

import (
	"strings"

	"github.com/porchbot/porchbot/internal/render/builtins"
)

// chartRepositories reads the chart repository allowlist into s.
func (r *reader) chartRepositories(s *Settings) {
	for _, e := range strings.Split(r.get("PORCHBOT_CHART_REPOSITORIES"), ",") {
		if e = strings.TrimSpace(e); e != "" {
			s.ChartRepositories = append(s.ChartRepositories, e)
		}
	}
	if _, err := builtins.ParseChartRepos(s.ChartRepositories); err != nil {
		r.errorf("PORCHBOT_CHART_REPOSITORIES", "%v", err)
	}
}

// ChartRepos are the chart repositories render-helm-chart may fetch from
// (nil when none are listed: charts come from the packages only).
func (s *Settings) ChartRepos() *builtins.ChartRepos {
	repos, err := builtins.ParseChartRepos(s.ChartRepositories)
	if err != nil || len(s.ChartRepositories) == 0 {
		return nil // Parse reported a bad allowlist
	}
	return repos
}
