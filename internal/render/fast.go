package render

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"runtime"
	"runtime/debug"
	"strconv"

	"sigs.k8s.io/kustomize/kyaml/comments"
	"sigs.k8s.io/kustomize/kyaml/fn/framework"
	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/kio/kioutil"
	"sigs.k8s.io/kustomize/kyaml/order"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// The in-memory path.
//
// Run exactly as kpt runs it, a function gets its input through a serialized
// ResourceList and returns one; kpt then copies comments from each input
// resource to its output counterpart and restores the input's field order
// (runtimeutil.FunctionFilter). The serialization matters only for comments:
// the YAML encoder and decoder move some of them around and kpt's comment
// copier has quirks of its own (it also turns folded scalars into
// double-quoted ones). For resources without folded scalars whose comments
// all sit where the round trip keeps them (stable.go), encoding and decoding
// a node tree changes nothing the file on disk can show, so the function can
// be handed copies of the nodes directly. That is what this path does, with
// the rest of kpt's bookkeeping (id annotations, internal annotation
// reconciliation, empty annotations cleared, comments copied back where the
// output lost one, field order synced, paths for new resources, results)
// done the same way. A resource with a header comment (headerResource) is
// serialized and read back on its own, on the way in and out. When the input
// has other comments or folded scalars the function is run again the
// serialized way; when the output has, it alone is serialized and read back.

// errNeedsExact reports that the in-memory run cannot stand for the
// serialized one.
type errNeedsExact struct{}

func (errNeedsExact) Error() string { return "needs serialized run" }

// errReplay reports that a function run in place (see inPlace) left what
// kpt's comment copy or order sync would change: the input it would need is
// gone, so the render starts again with copies (Render).
var errReplay = errors.New("render again with copies")

// inPlace reports whether the function may run on its input itself instead
// of copies: a built-in mutator with nothing to print, its config and every
// input resource without comments or folded scalars (kpt's comment copy has
// nothing to give back to them; plainShapeOf finds out), in a render whose functions so far were all
// such built-ins, so that starting again (errReplay) runs only them again.
// What the checks afterwards need of the input, its kinds, keys and order,
// is kept as shapes, a fifth of a copy's memory.
func (f *fnRun) inPlace() bool {
	if f.r.copying || f.r.foreign || f.kind != Mutator || f.bare == nil || f.stream != nil || f.printed != nil {
		return false
	}
	return f.config == nil || plain(f.config.Document())
}

// plain reports whether n has no comments and no folded scalars anywhere.
func plain(n *yaml.Node) bool {
	if n == nil {
		return true
	}
	if n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return false
	}
	if n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0 {
		return false
	}
	for _, c := range n.Content {
		if !plain(c) {
			return false
		}
	}
	return true
}

func plainShallow(n *yaml.Node) bool {
	return n.HeadComment == "" && n.LineComment == "" && n.FootComment == "" &&
		!(n.Kind == yaml.ScalarNode && n.Style&yaml.FoldedStyle != 0)
}

// inputShape is the shapes of a function's input resource n, in a buffer
// the next call reuses.
func (r *renderer) inputShape(n *yaml.Node) shapeRef {
	r.inputShapes = shapeOf(n, r.inputShapes)
	return shapeRef{r.inputShapes, 0}
}

// compactFrom is the number of nodes (some 7,000 resources) above which the
// first in-place run compacts the resources (compact); a variable for the
// tests.
var compactFrom = 4 * bigCopy

// compact replaces what n holds with a copy in one slab (n itself, the
// node its parents point to, stays), s being n's shapes (their number is the
// nodes', the sum of their n the Content entries').
func compact(n *yaml.Node, s shapes, keys map[string]string) {
	slots := 0
	for _, x := range s {
		slots += int(x.n)
	}
	slab := &nodeSlab{nodes: make([]yaml.Node, len(s)), slots: make([]*yaml.Node, slots), keys: keys}
	*n = *slab.copy(n)
}

// copySized deep-copies n as yaml.CopyYNode does (aliases keep pointing at
// the original), except that nodes without a tag get the one the YAML
// decoder would give them, as when the function reads them from a
// serialized ResourceList. It allocates at once the nodes and Content
// entries it expects to need (nodes and slots, as stableSize counts them;
// more are allocated if that is short).
func copySized(n *yaml.Node, nodes, slots int) *yaml.Node {
	if n == nil {
		return nil
	}
	s := &nodeSlab{nodes: make([]yaml.Node, nodes), slots: make([]*yaml.Node, slots)}
	return s.copy(n)
}

// nodeSlab hands out the nodes and Content entries of one copy.
type nodeSlab struct {
	nodes []yaml.Node
	slots []*yaml.Node
	// keys, when set, interns mapping keys: the decoder allocates each
	// scalar's text on its own, and every lookup of a field by name reads
	// the text of the keys it compares; one string per distinct key keeps
	// the common ones (metadata, annotations, name) in the cache, and the
	// heap smaller
	keys map[string]string
}

func (s *nodeSlab) copy(n *yaml.Node) *yaml.Node {
	if len(s.nodes) == 0 {
		s.nodes = make([]yaml.Node, 16)
	}
	c := &s.nodes[0]
	s.nodes = s.nodes[1:]
	*c = *n
	if c.Tag == "" && (c.Kind == yaml.ScalarNode || c.Kind == yaml.MappingNode || c.Kind == yaml.SequenceNode) {
		// a node made in process: tagged as when it is read back (which
		// changes nothing when it is written)
		c.Tag = c.ShortTag()
	}
	if k := len(n.Content); k > 0 {
		if len(s.slots) < k {
			s.slots = make([]*yaml.Node, max(k, 16))
		}
		// capacity k: appending to one node's Content must not overwrite
		// the next one's
		c.Content = s.slots[:k:k]
		s.slots = s.slots[k:]
		for i, x := range n.Content {
			if x != nil {
				c.Content[i] = s.copy(x)
			}
		}
		if s.keys != nil && c.Kind == yaml.MappingNode {
			for i := 0; i < k; i += 2 {
				if key := c.Content[i]; key != nil && key.Kind == yaml.ScalarNode {
					if v, ok := s.keys[key.Value]; ok {
						key.Value = v
					} else {
						s.keys[key.Value] = key.Value
					}
				}
			}
		}
	}
	return c
}

// runInMemory is FunctionFilter.Filter for stable input (see stableResource):
// the function works on copies of the nodes instead of a serialized
// ResourceList. When its output is stable too, the serialization would not
// change it, so kpt's comment copy runs only on the resources where it would
// restore a comment (see commentsKept) and field order is synced; when it
// is not, the output goes through the same encoding and decoding and the same
// comment copy as in kpt. It returns errNeedsExact, having run nothing, when
// the input is not stable, and, having run the function on copies only, when
// kpt's comment copy would fail on the output (a node changed kind), so
// that the serialized run reports that as kpt does.
func (f *fnRun) runInMemory(input []*yaml.RNode) (output []*yaml.RNode, results fnResults, exit error, err error) {
	var none fnResults
	if f.config != nil && !plain(f.config.Document()) {
		return nil, none, nil, errNeedsExact{}
	}
	type size struct{ nodes, slots int }
	var sizes []size
	total := 0
	var header map[int]bool // inputs that go through a ResourceList of their own
	measure := func() error {
		sizes = make([]size, len(input))
		for i, n := range input {
			nodes, slots, ok := stableResource(n)
			if !ok {
				if !headerResource(n) {
					return errNeedsExact{}
				}
				if header == nil {
					header = map[int]bool{}
				}
				header[i] = true
			}
			sizes[i] = size{nodes, slots}
			total += nodes
		}
		f.r.largestCopy = max(f.r.largestCopy, total)
		if total > bigCopy {
			// the previous function's input is garbage by now: collected
			// before the copy, the heap need not hold it, the input and the copy
			runtime.GC()
		}
		return nil
	}
	inPlace := f.inPlace()
	if !inPlace {
		if err := measure(); err != nil {
			return nil, none, nil, err
		}
	}
	// ids on the input, as kpt sets them before writing the ResourceList
	ids := make(map[string]*yaml.RNode, len(input))
	at := make(map[string]int, len(input))
	for i, n := range input {
		id := strconv.Itoa(i + 1)
		if err := setAnnotation(n, kioutil.IdAnnotation, id); err != nil {
			return nil, none, nil, err
		}
		if err := setAnnotation(n, kioutil.LegacyIdAnnotation, id); err != nil { //nolint:staticcheck
			return nil, none, nil, err
		}
		ids[id] = n
		at[id] = i
	}
	// what the function reads: the resources' mapping nodes, ids included
	// (4 more nodes where annotations were there already), with empty
	// annotations dropped (kpt's writer does that)
	items := make([]*yaml.RNode, len(input))
	var before []shapes // in place: the inputs' shapes, by index
	if inPlace {
		before = make([]shapes, len(input))
		// one slab for all (a resource that outgrows what is left moves
		// to a larger one, which the next ones go on filling)
		// the last in-place run's slab, whose shapes are dead by now
		slab := f.r.shapeSlab[:0]
		if cap(slab) < max(f.r.shapeHint, 64*len(input)) {
			slab = make(shapes, 0, max(f.r.shapeHint, 64*len(input)))
		}
		base := slab
		used := 0
		for i, n := range input {
			var ok bool
			before[i], ok = plainShapeOf(n, slab)
			if !ok {
				// a comment to give back: copies after all
				inPlace, before = false, nil
				if err := measure(); err != nil {
					return nil, none, nil, err
				}
				break
			}
			slab = before[i][len(before[i]):]
			used += len(before[i])
		}
		f.r.shapeHint = used + used/8
		f.r.shapeSlab = nil
		if used <= cap(base) {
			f.r.shapeSlab = base[:0] // all in it: the next run may reuse it
		}
	}
	if inPlace && !f.r.compacted {
		f.r.compacted = true
		if f.r.shapeHint > compactFrom {
			// The decoder's nodes lie scattered over the heap; copied once
			// into a slab per resource (as the copy path's copies are),
			// every later walk, the functions' and the writer's, finds
			// them together: at 20,000 resources the functions and the
			// writer take a third longer on the scattered ones, and the
			// copy costs a tenth of that. (A smaller package suffers less
			// from the scattering, and the copies would only add to its
			// peak memory.) The decoder's nodes become garbage resource
			// by resource.
			f.r.res.stats.compacted = true
			keys := map[string]string{}
			for i, n := range input {
				compact(n.YNode(), before[i], keys)
			}
		}
	}
	if inPlace {
		f.r.res.stats.inPlace++
		for i, n := range input {
			if err := clearEmptyAnnotations(n); err != nil {
				return nil, none, nil, err
			}
			items[i] = n
		}
	}
	for i, n := range input {
		if inPlace {
			break
		}
		if header[i] {
			// what the function reads of it from kpt's ResourceList
			var err error
			if items[i], err = throughList(n, f.config, nil, &kio.ByteReadWriter{KeepReaderAnnotations: true}); err != nil {
				return nil, none, nil, err
			}
			continue
		}
		items[i] = yaml.NewRNode(copySized(n.YNode(), sizes[i].nodes+4, sizes[i].slots+4))
		if err := clearEmptyAnnotations(items[i]); err != nil {
			return nil, none, nil, err
		}
	}
	rl := &framework.ResourceList{Items: items}
	if f.config != nil {
		rl.FunctionConfig = yaml.NewRNode(yaml.CopyYNode(f.config.YNode()))
	}
	exit, err = f.execute(rl)
	if err != nil {
		return nil, none, nil, err
	}
	// what kpt reads back (parsed at once, when that is the same)
	results.list, results.parsed = copyResults(rl.Results)
	if !results.parsed {
		b, err := yaml.Marshal(rl.Results)
		if err != nil {
			return nil, none, nil, err
		}
		if results.node, err = yaml.Parse(string(b)); err != nil {
			return nil, none, nil, err
		}
	}
	output = make([]*yaml.RNode, 0, len(rl.Items))
	roundTrip := false
	for _, n := range rl.Items {
		if n == nil || n.YNode() == nil {
			continue
		}
		if d := n.Document(); d != n.YNode() && !plainShallow(d) {
			roundTrip = true
		}
		if n.Document() != n.YNode() {
			n = yaml.NewRNode(n.YNode())
		}
		if err := clearEmptyAnnotations(n); err != nil {
			return nil, none, nil, err
		}
		output = append(output, n)
	}
	// outputs read back on their own, for kpt's comment copy: those of
	// inputs with a header and those with one
	exact := map[int]bool{}
	if header != nil {
		for i, n := range output {
			if id, ok := annotation(annotationsOf(n), kioutil.IdAnnotation); ok {
				if k, err := strconv.Atoi(id); err == nil && header[k-1] {
					exact[i] = true
				}
			}
		}
	}
	if !roundTrip {
		if need := max(f.r.shapeHint, total); cap(f.r.marks) < need {
			// one allocation for what the walk marks (the nodes, about)
			f.r.marks = make([]*yaml.Node, 0, need)
		}
		unstable, shared := stableUnshared(output, &f.r.marks)
		roundTrip = shared
		for _, i := range unstable {
			if roundTrip || !headerResource(output[i]) {
				roundTrip = true
				break
			}
			exact[i] = true
		}
	}
	if inPlace && roundTrip {
		// kpt's comment copy and order sync would need the input as it was
		return nil, none, nil, errReplay
	}
	if !roundTrip {
		for i := range exact {
			f.r.res.stats.headerTrip++
			if output[i], err = throughList(output[i], rl.FunctionConfig, results.node, &kio.ByteReader{}); err != nil {
				return nil, none, nil, err
			}
		}
	} else {
		clear(exact)
		f.r.res.stats.roundTrip++
		// what kpt reads back from the function
		var buf bytes.Buffer
		if err := (kio.ByteWriter{Writer: &buf, KeepReaderAnnotations: true, FunctionConfig: rl.FunctionConfig,
			Results: results.node, WrappingAPIVersion: kio.ResourceListAPIVersion,
			WrappingKind: kio.ResourceListKind}).Write(output); err != nil {
			return nil, none, nil, err
		}
		if output, err = (&kio.ByteReader{Reader: &buf}).Read(); err != nil {
			return nil, none, nil, err
		}
	}
	// kpt's side: comments and field order back from the input, ids off
	for i, n := range output {
		annos := annotationsOf(n)
		id, ok := annotation(annos, kioutil.IdAnnotation)
		if !ok {
			if id, ok = annotation(annos, kioutil.LegacyIdAnnotation); !ok { //nolint:staticcheck
				continue
			}
		}
		in, ok := ids[id]
		if !ok {
			continue
		}
		// kpt's comment copy fails where a node changed kind (say a scalar
		// became a mapping); the serialized run fails the same way
		if inPlace {
			// no comment to copy back; a kind changed or an order to sync
			// needs the input as it was
			ref := shapeRef{before[at[id]], 0}
			if shapeClash(ref, n.YNode()) || !shapeOrderMatches(ref, n.YNode()) {
				return nil, none, nil, errReplay
			}
		} else if roundTrip || exact[i] {
			if err := comments.CopyComments(in, n); err != nil {
				return nil, none, nil, errNeedsExact{}
			}
			if err := order.SyncOrder(in, n); err != nil {
				return nil, none, nil, err
			}
		} else {
			from := f.r.inputShape(in.YNode())
			if shapeClash(from, n.YNode()) {
				return nil, none, nil, errNeedsExact{}
			}
			if !commentsKept(in.YNode(), n.YNode()) {
				// the output is as the round trip would leave it: kpt's
				// comment copy, on this resource alone
				f.r.res.stats.commentCopy++
				if err := comments.CopyComments(in, n); err != nil {
					return nil, none, nil, errNeedsExact{}
				}
			}
			if !shapeOrderMatches(from, n.YNode()) {
				if err := order.SyncOrder(in, n); err != nil {
					return nil, none, nil, err
				}
			}
		}
		clearAnnotation(n, kioutil.IdAnnotation)
		clearAnnotation(n, kioutil.LegacyIdAnnotation) //nolint:staticcheck
	}
	if exit != nil {
		return output, results, exit, nil
	}
	if err := defaultPaths(functionScope(f.config), output); err != nil {
		// FunctionFilter's failure after the function ran (an output
		// resource without metadata): kpt records the function as failed
		return nil, results, err, nil
	}
	return output, results, nil, nil
}

// copyResults returns copies of a function's results as kpt reads them back
// from the ResourceList the function wrote (yaml.Marshal, then
// parseStructuredResult), without the round trip: for results made of
// strings and numbers only, it changes nothing but dropping empty tags. ok
// is false when a field has a current or proposed value, which the round
// trip turns into plain YAML data.
func copyResults(rs framework.Results) (out []*framework.Result, ok bool) {
	if len(rs) == 0 {
		return nil, true
	}
	out = make([]*framework.Result, len(rs))
	for i, r := range rs {
		if r == nil {
			continue
		}
		c := *r
		if r.ResourceRef != nil {
			ref := *r.ResourceRef
			c.ResourceRef = &ref
		}
		if r.Field != nil {
			if r.Field.CurrentValue != nil || r.Field.ProposedValue != nil {
				return nil, false
			}
			field := *r.Field
			c.Field = &field
		}
		if r.File != nil {
			file := *r.File
			c.File = &file
		}
		c.Tags = nil
		if len(r.Tags) > 0 {
			c.Tags = make(map[string]string, len(r.Tags))
			for k, v := range r.Tags {
				c.Tags[k] = v
			}
		}
		out[i] = &c
	}
	return out, true
}

// execute is framework.Execute minus the reading and writing.
func (f *fnRun) execute(rl *framework.ResourceList) (exit error, err error) {
	var annos snapshot
	if !f.unreconciled {
		if annos, err = preprocess(rl.Items); err != nil {
			return nil, err
		}
	}
	exit = func() (e error) {
		defer func() {
			if p := recover(); p != nil {
				e = &ExecError{ExitCode: 1, Stderr: fmt.Sprintf("function panicked: %v\n%s", p, debug.Stack())}
			}
		}()
		process := f.proc.Process
		if f.bare != nil {
			// the bookkeeping a built-in's Process repeats is done here
			process = f.bare.ProcessBare
		}
		if e := process(rl); e != nil {
			return &ExecError{ExitCode: 1, Stderr: e.Error(), Err: e}
		}
		return nil
	}()
	if f.unreconciled {
		return exit, nil
	}
	if err := reconcile(rl.Items, annos); err != nil {
		// framework.Execute fails before writing anything
		rl.Items, rl.Results = nil, nil
		return &ExecError{ExitCode: 1, Stderr: err.Error(), Err: err}, nil
	}
	return exit, nil
}

// stableUnshared returns the indexes of the nodes that are not stable (see
// stableShallow) and whether a node is reachable twice in them; a node shared
// between resources (or within one) would be two independent nodes after a
// round trip. (A resource that is not stable is not walked to its end: it
// will be read back on its own, which unshares its nodes.) buf is scratch
// space, kept for the next call.
func stableUnshared(nodes []*yaml.RNode, buf *[]*yaml.Node) (unstable []int, shared bool) {
	// Mark each node visited by negating its Column (which nothing reads
	// when encoding) and put the columns back afterwards.
	marked := (*buf)[:0]
	defer func() {
		clear(marked)
		*buf = marked[:0]
	}()
	var walk func(n *yaml.Node, p place) (stable bool)
	walk = func(n *yaml.Node, p place) bool {
		if n == nil {
			return true
		}
		if n.Column < 0 {
			shared = true
			return false
		}
		if !stableShallow(n, p) {
			return false
		}
		n.Column = -n.Column - 1
		marked = append(marked, n)
		if n.Kind == yaml.AliasNode {
			return true // aliases survive a round trip as aliases
		}
		for i, c := range n.Content {
			if !walk(c, childPlace(n, p, i)) {
				return false
			}
		}
		return true
	}
	for i, n := range nodes {
		if !walk(n.YNode(), atRoot) {
			if shared {
				break
			}
			unstable = append(unstable, i)
		}
	}
	for _, n := range marked {
		n.Column = -n.Column - 1
	}
	return unstable, shared
}

// throughList returns n as read back by r from a ResourceList holding it
// alone, with config and results, as kpt writes it: what a round trip of
// the whole list makes of n when n is a headerResource
// (TestHeaderRoundTripAlone).
func throughList(n, config, results *yaml.RNode, r kio.Reader) (*yaml.RNode, error) {
	var buf bytes.Buffer
	if err := (kio.ByteWriter{Writer: &buf, KeepReaderAnnotations: true, FunctionConfig: config, Results: results,
		WrappingAPIVersion: kio.ResourceListAPIVersion, WrappingKind: kio.ResourceListKind}).Write([]*yaml.RNode{n}); err != nil {
		return nil, err
	}
	switch r := r.(type) {
	case *kio.ByteReadWriter:
		r.Reader = &buf
	case *kio.ByteReader:
		r.Reader = &buf
	}
	items, err := r.Read()
	if err != nil {
		return nil, err
	}
	if len(items) != 1 {
		return nil, errNeedsExact{}
	}
	return items[0], nil
}

// defaultPaths is kioutil.DefaultPathAnnotation, skipping the resources
// that have both path annotations already (for which it does nothing).
func defaultPaths(dir string, nodes []*yaml.RNode) error {
	for _, n := range nodes {
		a := annotationsOf(n)
		p, ok1 := annotation(a, kioutil.PathAnnotation)
		l, ok2 := annotation(a, kioutil.LegacyPathAnnotation) //nolint:staticcheck
		if ok1 && ok2 && p != "" && p == l && !needsLegacyCopy(a) {
			continue
		}
		if err := kioutil.DefaultPathAnnotation(dir, []*yaml.RNode{n}); err != nil {
			return err
		}
	}
	return nil
}

// keyIndex returns the index of key k in mapping m's Content, or -1.
func keyIndex(m *yaml.Node, k string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k {
			return i
		}
	}
	return -1
}

func hasDupKeys(m *yaml.Node) bool {
	n := len(m.Content) / 2
	if n > 16 {
		seen := make(map[string]bool, n)
		for i := 0; i+1 < len(m.Content); i += 2 {
			if seen[m.Content[i].Value] {
				return true
			}
			seen[m.Content[i].Value] = true
		}
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		for j := i + 2; j+1 < len(m.Content); j += 2 {
			if m.Content[i].Value == m.Content[j].Value {
				return true
			}
		}
	}
	return false
}

// functionScope is the directory new resources go to: the one holding the
// function config (its parent if it is named "functions"), as kyaml's
// function filter decides.
func functionScope(cfg *yaml.RNode) string {
	if cfg == nil {
		return ""
	}
	annos := cfg.GetAnnotations()
	p, ok := annos[kioutil.PathAnnotation]
	if !ok {
		if p, ok = annos[kioutil.LegacyPathAnnotation]; !ok { //nolint:staticcheck
			return ""
		}
	}
	dir := path.Clean(path.Dir(p))
	if path.Base(dir) == "functions" {
		dir = path.Dir(dir)
	}
	return dir
}
