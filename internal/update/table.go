package update

import (
	"fmt"
	"io"
)

// WriteTable prints conflicts as the table the CLI and pull request bodies
// show: file, resource, field, local value, upstream value, side taken.
// (Placeholder layout; the engine work gives it its final form.)
func WriteTable(w io.Writer, cs []Conflict) error {
	for _, c := range cs {
		if _, err := fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", c.File, c.Resource, c.Field, c.Local, c.Upstream, c.Taken); err != nil {
			return err
		}
	}
	return nil
}
