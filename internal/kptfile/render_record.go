package kptfile

import "bytes"

// RecordOnlyChange reports whether rendered, a Kptfile as a render left
// it, differs from committed, the Kptfile the render read, in nothing but
// the record of the render (the Rendered condition and
// status.renderStatus), with committed not saying otherwise about whether
// the package renders: it records no render, or a Rendered condition of
// the same status. Such a package is rendered: its record came from the
// render that made it (whose results, a change counted, say what that
// render changed and the next one does not), or from none.
func RecordOnlyChange(committed, rendered []byte) bool {
	c, err := Parse(committed)
	if err != nil {
		return false
	}
	r, err := Parse(rendered)
	if err != nil {
		return false
	}
	ck, rk := *c.Kptfile(), *r.Kptfile()
	if ck.Status != nil && rk.Status != nil {
		cc, cok := ck.Status.Condition(ConditionRendered)
		rc, rok := rk.Status.Condition(ConditionRendered)
		if cok && rok && cc.Status != rc.Status {
			return false
		}
	}
	ClearRenderStatus(&ck)
	ClearRenderStatus(&rk)
	cb, err := Marshal(&ck)
	if err != nil {
		return false
	}
	rb, err := Marshal(&rk)
	return err == nil && bytes.Equal(cb, rb)
}
