package builtins

import (
	"fmt"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
)

// search-replace v0.1.x: the matchers of v0.2.0 without `by-file-path`.
// v0.1.0 reads the matchers it knows from the config and ignores any other key
// (a `by-file-path` selects nothing: every file is searched); v0.1.1 refuses
// a key that is not one of its five matchers and requires one of by-value,
// by-value-regex and by-path. Results and failures as v0.2.0.
type searchReplaceV01 struct {
	strict bool // v0.1.1
}

var searchReplaceV01Matchers = []string{byValue, byValueRegex, byPath, putValue, putComment}

func (v searchReplaceV01) process(rl *framework.ResourceList) error {
	dm := dataMap(rl.FunctionConfig)
	var err error
	if v.strict {
		err = v.check(dm)
	}
	if err != nil {
		rl.Results = append(rl.Results, result(fmt.Sprintf("failed to perform search-replace operation: %q", err.Error()), framework.Error))
		return err
	}
	sr := &searchReplacer{byPath: dm[byPath], byValue: dm[byValue], byValueRegex: dm[byValueRegex],
		putValue: dm[putValue], putComment: dm[putComment]}
	return sr.report(rl, sr.filter(rl.Items))
}

func (searchReplaceV01) check(dm map[string]string) error {
	for k := range dm {
		known := false
		for _, m := range searchReplaceV01Matchers {
			known = known || k == m
		}
		if !known {
			return fmt.Errorf("invalid matcher %q, must be one of %q", k, searchReplaceV01Matchers)
		}
	}
	if dm[byValue] == "" && dm[byValueRegex] == "" && dm[byPath] == "" {
		return fmt.Errorf(`at least one of [%q, %q, %q] must be provided`, byValue, byValueRegex, byPath)
	}
	return nil
}
