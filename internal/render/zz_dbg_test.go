package render

import (
	"context"
	"testing"
)

func TestZZStats(t *testing.T) {
	fs, root := genPackage(t, 30, 5, benchPipeline)
	res, err := Render(context.Background(), fs, root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res.stats)
}
