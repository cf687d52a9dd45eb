package builtins

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// search-replace (catalog v0.2): matches fields of all resources by path
// (`by-path`, with `*` for one element, `**` for any number, `a[*]`/`a[k=v]`
// style list elements), by value (`by-value`), by value regex
// (`by-value-regex`) and by file (`by-file-path`, a doublestar glob), then
// optionally puts a value (`put-value`, with ${n} capture groups of the regex)
// and/or a line comment (`put-comment`). An absolute `by-path` with
// `put-value` and no value matcher creates the field where missing. One result
// per matched field: "Matched field value ..." or "Mutated field value to ...".

const (
	byValue      = "by-value"
	byValueRegex = "by-value-regex"
	byPath       = "by-path"
	byFilePath   = "by-file-path"
	putValue     = "put-value"
	putComment   = "put-comment"
)

var searchReplaceMatchers = []string{byValue, byFilePath, byValueRegex, byPath, putValue, putComment}

type searchResult struct{ filePath, fieldPath, value string }

type searchReplacer struct {
	byValue, byValueRegex, byPath, byFilePath, putValue, putComment string

	count    int
	results  []searchResult
	regex    *regexp.Regexp
	filePath string
}

func searchReplace(rl *framework.ResourceList) error {
	sr, err := decodeSearchReplace(rl.FunctionConfig)
	if err == nil {
		err = sr.filter(rl.Items)
	}
	return sr.report(rl, err)
}

// report appends the results of a search (or its failure) to rl.
func (sr *searchReplacer) report(rl *framework.ResourceList, err error) error {
	if err != nil {
		rl.Results = append(rl.Results, result(fmt.Sprintf("failed to perform search-replace operation: %q", err.Error()), framework.Error))
		return err
	}
	if len(sr.results) == 0 {
		rl.Results = append(rl.Results, &framework.Result{Message: "no matches"})
		return nil
	}
	for _, r := range sr.results {
		msg := fmt.Sprintf("Matched field value %q", r.value)
		if sr.putComment != "" || sr.putValue != "" {
			msg = fmt.Sprintf("Mutated field value to %q", r.value)
		}
		rl.Results = append(rl.Results, &framework.Result{
			Message: msg,
			Field:   &framework.Field{Path: r.fieldPath},
			File:    &framework.File{Path: r.filePath},
		})
	}
	return nil
}

func decodeSearchReplace(fc *yaml.RNode) (*searchReplacer, error) {
	dm := dataMap(fc)
	for k := range dm {
		valid := false
		for _, m := range searchReplaceMatchers {
			if k == m {
				valid = true
			}
		}
		if !valid {
			return nil, fmt.Errorf("invalid matcher %q, must be one of %q", k, searchReplaceMatchers)
		}
	}
	return &searchReplacer{
		byPath: dm[byPath], byValue: dm[byValue], byValueRegex: dm[byValueRegex],
		putValue: dm[putValue], putComment: dm[putComment], byFilePath: dm[byFilePath],
	}, nil
}

func (sr *searchReplacer) filter(nodes []*yaml.RNode) error {
	if sr.byValue != "" && sr.byValueRegex != "" {
		return fmt.Errorf(`only one of [%q, %q] can be provided`, byValue, byValueRegex)
	}
	if sr.byValueRegex != "" {
		re, err := regexp.Compile(sr.byValueRegex)
		if err != nil {
			return err
		}
		sr.regex = re
	}
	for _, object := range nodes {
		filePath, _, err := kioutil.GetFileAnnotations(object)
		if err != nil {
			return err
		}
		if sr.byFilePath != "" {
			match, err := doublestarMatch(sr.byFilePath, filePath)
			if err != nil {
				return err
			}
			if !match {
				continue
			}
		}
		sr.filePath = filePath
		if sr.shouldPutValueByPath() {
			if err := sr.putValueByPath(object); err != nil {
				return err
			}
			continue
		}
		if err := walkFields(sr, object, ""); err != nil {
			return err
		}
	}
	return nil
}

func (sr *searchReplacer) visitMapping(object *yaml.RNode, p string) error {
	return object.VisitFields(func(node *yaml.MapNode) error {
		if sr.putComment == "" || node.IsNilOrEmpty() {
			return nil
		}
		if node.Value.YNode().Kind != yaml.SequenceNode {
			return nil
		}
		key, err := node.Key.String()
		if err != nil {
			return err
		}
		pathToKey := fmt.Sprintf("%s.%s", p, strings.TrimSpace(key))
		if !sr.pathMatch(strings.TrimPrefix(pathToKey, ".")) {
			return nil
		}
		node.Key.YNode().LineComment = sr.putComment
		node.Value.YNode().Style = yaml.FlowStyle
		val, err := yaml.String(node.Value.YNode())
		if err != nil {
			return err
		}
		node.Value.YNode().Style = yaml.FoldedStyle
		sr.results = append(sr.results, searchResult{
			filePath:  sr.filePath,
			fieldPath: sr.byPath + fmt.Sprintf(" # %s", sr.putComment),
			value:     strings.TrimSpace(val),
		})
		sr.count++
		return nil
	})
}

func (sr *searchReplacer) visitScalar(object *yaml.RNode, p string) error {
	node := object.YNode()
	if node.Kind != yaml.ScalarNode || !sr.criteriaMatch(node, p) {
		return nil
	}
	sr.count++
	if sr.putComment != "" {
		c, err := resolveCapturePattern(node.Value, sr.byValueRegex, sr.putComment)
		if err != nil {
			return err
		}
		node.LineComment = c
	}
	if sr.putValue != "" {
		v, err := resolveCapturePattern(node.Value, sr.byValueRegex, sr.putValue)
		if err != nil {
			return err
		}
		node.Value = v
		node.Tag = yaml.NodeTagEmpty
	}
	if sr.filePath != "" {
		s, err := yaml.String(node)
		if err != nil {
			return err
		}
		sr.results = append(sr.results, searchResult{
			filePath: sr.filePath, fieldPath: strings.TrimPrefix(p, "."), value: strings.TrimSpace(s),
		})
	}
	return nil
}

func (sr *searchReplacer) criteriaMatch(node *yaml.Node, p string) bool {
	pathMatch := sr.pathMatch(p)
	valueMatch := (sr.byValue != "" && sr.byValue == node.Value) || (sr.regex != nil && sr.regex.MatchString(node.Value))
	return (valueMatch && pathMatch) ||
		(valueMatch && sr.byPath == "") ||
		(pathMatch && sr.byValue == "" && sr.byValueRegex == "")
}

func (sr *searchReplacer) shouldPutValueByPath() bool {
	return isAbsPath(sr.byPath) && !strings.Contains(sr.byPath, "[") &&
		sr.byValue == "" && sr.byValueRegex == "" && sr.putValue != ""
}

func (sr *searchReplacer) putValueByPath(object *yaml.RNode) error {
	elems := strings.Split(sr.byPath, ".")
	node, err := object.Pipe(yaml.LookupCreate(yaml.MappingNode, elems[:len(elems)-1]...))
	if err != nil {
		return err
	}
	// an untagged plain scalar, its type implied when read (3 is a number,
	// true a boolean), as the catalog function writes it: kyaml's SetField
	// would double-quote such values (OverrideStyle keeps it from that)
	sn := yaml.NewScalarRNode(sr.putValue)
	sn.YNode().Tag = yaml.NodeTagEmpty
	if err := node.PipeE(yaml.FieldSetter{Name: elems[len(elems)-1], Value: sn, OverrideStyle: true}); err != nil {
		return err
	}
	sr.results = append(sr.results, searchResult{filePath: sr.filePath, fieldPath: sr.byPath, value: sr.putValue})
	sr.count++
	return nil
}

// resolveCapturePattern replaces ${n} in pattern with the regex's capture
// groups matched in value.
func resolveCapturePattern(value, valueRegex, pattern string) (string, error) {
	if valueRegex == "" {
		return pattern, nil
	}
	r, err := regexp.Compile(valueRegex)
	if err != nil {
		return "", fmt.Errorf("failed to compile input pattern %q: %s", valueRegex, err.Error())
	}
	res := pattern
	for i, g := range r.FindStringSubmatch(value) {
		if i == 0 {
			continue
		}
		res = strings.ReplaceAll(res, fmt.Sprintf("${%d}", i), g)
	}
	if regexp.MustCompile(`\$\{([0-9]+)\}`).MatchString(res) {
		return "", fmt.Errorf("unable to resolve capture groups")
	}
	return res, nil
}

// pathMatch matches a walked field path against by-path.
func (sr *searchReplacer) pathMatch(yamlPath string) bool {
	if sr.byPath == "" {
		return false
	}
	pattern := strings.Split(sr.byPath, ".")
	elems := strings.Split(strings.TrimPrefix(yamlPath, "."), ".")
	return pathElemsMatch(elems, pattern)
}

func pathElemsMatch(elems, pattern []string) bool {
	dp := make([][]bool, len(elems)+1)
	for i := range dp {
		dp[i] = make([]bool, len(pattern)+1)
	}
	dp[0][0] = true
	for j := 1; j <= len(pattern); j++ {
		if pattern[j-1] == "**" {
			dp[0][j] = dp[0][j-1]
		}
	}
	for i := 1; i <= len(elems); i++ {
		for j := 1; j <= len(pattern); j++ {
			switch {
			case pattern[j-1] == "**":
				dp[i][j] = dp[i][j-1] || dp[i-1][j]
			case pattern[j-1] == "*" || pathElemMatch(elems[i-1], pattern[j-1]):
				dp[i][j] = dp[i-1][j-1]
			}
		}
	}
	return dp[len(elems)][len(pattern)]
}

func pathElemMatch(elem, pattern string) bool {
	if elem == pattern {
		return true
	}
	if strings.Contains(elem, "[") {
		ep := strings.Split(elem, "[")
		pp := strings.Split(pattern, "[")
		if pp[0] != "*" && ep[0] != pp[0] {
			return false
		}
		return len(pp) > 1 && (pp[1] == "*]" || ep[1] == pp[1])
	}
	return false
}

func isAbsPath(p string) bool {
	for _, e := range strings.Split(p, ".") {
		if e == "" || strings.Contains(e, "*") {
			return false
		}
	}
	return true
}

// doublestarMatch matches a slash-separated path against a glob where `**`
// matches any number of path elements (github.com/bmatcuk/doublestar
// semantics for the common cases: *, ?, [...], {a,b} and **).
func doublestarMatch(pattern, name string) (bool, error) {
	for _, p := range expandBraces(pattern) {
		if _, err := path.Match(strings.ReplaceAll(p, "**", "*"), ""); err != nil {
			return false, err
		}
		if globSegments(strings.Split(p, "/"), strings.Split(name, "/")) {
			return true, nil
		}
	}
	return false, nil
}

func globSegments(pat, segs []string) bool {
	if len(pat) == 0 {
		return len(segs) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(segs); i++ {
			if globSegments(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if len(segs) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], segs[0])
	if err != nil || !ok {
		return false
	}
	return globSegments(pat[1:], segs[1:])
}

func expandBraces(p string) []string {
	open := strings.Index(p, "{")
	if open < 0 {
		return []string{p}
	}
	depth := 0
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				var out []string
				for _, alt := range splitTopLevel(p[open+1 : i]) {
					out = append(out, expandBraces(p[:open]+alt+p[i+1:])...)
				}
				return out
			}
		}
	}
	return []string{p}
}

func splitTopLevel(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
