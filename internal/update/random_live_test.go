package update

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// randomEdits edits a package's text at random, in ways people edit
// packages: values changed, fields added and removed, list elements
// added, comments written, resources and files removed and added.
func randomEdits(r *rand.Rand, side string) func(Files) {
	return func(f Files) {
		var names []string
		for p := range f {
			if strings.HasPrefix(p, "resources-") {
				names = append(names, p)
			}
		}
		sort.Strings(names)
		for k := 0; k < 6; k++ {
			if len(names) == 0 {
				return
			}
			p := names[r.Intn(len(names))]
			s := string(f[p])
			switch r.Intn(9) {
			case 0:
				s = strings.Replace(s, "  replicas: 2\n", fmt.Sprintf("  replicas: %d\n", 3+r.Intn(3)), 1)
			case 1:
				s = strings.Replace(s, "LOG_LEVEL: info", "LOG_LEVEL: "+side, 1)
			case 2:
				s = strings.Replace(s, "  MODE: prod\n", "", 1)
			case 3:
				s = strings.Replace(s, "            - name: MODE\n              value: prod\n", "            - name: MODE\n              value: prod\n            - name: "+strings.ToUpper(side)+"\n              value: \"1\"\n", 1)
			case 4:
				s = strings.Replace(s, "  LOG_LEVEL:", "  # set by "+side+"\n  LOG_LEVEL:", 1)
			case 5:
				s = strings.Replace(s, "image: busybox:1.36", "image: busybox:"+side, 1)
			case 6:
				s = strings.Replace(s, "      targetPort: 8080\n", "      targetPort: 9090\n", 1)
			case 7:
				f["added-"+side+".yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: added-" + side + "\ndata:\n  on: yes\n")
			case 8:
				s = strings.Replace(s, "  labels:\n    app:", "  labels:\n    tier: "+side+"\n    app:", 1)
			}
			f[p] = []byte(s)
		}
	}
}

// TestMergeMatchesKptLiveRandomEdits: upstream and downstream edit a
// generated package at random (seeded), the real `kpt pkg update` merges,
// and Merge must give its files byte for byte.
func TestMergeMatchesKptLiveRandomEdits(t *testing.T) {
	needKpt(t)
	for seed := int64(1); seed <= 12; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewSource(seed))
			origin := genUpdatePackage(18, 3)
			updated := Files{}
			for p, b := range origin {
				updated[p] = b
			}
			randomEdits(r, "up")(updated)
			local, expected, opts, _ := kptUpdate(t, origin, updated, randomEdits(r, "down"), "")
			res, err := Merge(origin, updated, local, opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := diffFiles(res.Files, expected); d != "" {
				t.Errorf("differs from kpt:\n%s", d)
			}
		})
	}
}
