package render

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/kyaml/kio"
	"sigs.k8s.io/kustomize/kyaml/yaml"
)

// streamEncode is encodeFile as it was, one encoder for the whole file:
// the reference for the encoder per document.
func streamEncode(t *testing.T, nodes []*yaml.RNode) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	docs, wide, err := fileDocuments(nodes)
	if err != nil {
		t.Fatal(err)
	}
	for i, doc := range docs {
		if wide[i] {
			enc.DefaultSeqIndent()
		} else {
			enc.CompactSeqIndent()
		}
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// encodeFileCases are files whose documents end, begin or are separated in
// the ways an encoder's state carries from one document to the next:
// comments on documents and around them, keep-chomped block scalars last
// and not last, sequence indentation changing between documents, a bare
// sequence.
var encodeFileCases = map[string]string{
	"comments.yaml": "# head of the file\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # line\n" +
		"data:\n  k: v\n# foot of a\n---\n# head of b\n\n# after a blank line\napiVersion: v1\nkind: ConfigMap\n" +
		"metadata:\n  name: b\n# foot of b\n",
	"keep.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: |+\n    kept\n\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: |+\n    kept\n\n",
	"seq.yaml": "apiVersion: v1\nkind: List\nmetadata:\n  name: a\nitems:\n- a\n- b\n---\napiVersion: v1\nkind: List\n" +
		"metadata:\n  name: b\nitems:\n  - a\n  - b\n---\napiVersion: v1\nkind: List\nmetadata:\n  name: c\nitems:\n- c\n",
	"bare.yaml": "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n",
	"folded.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: >\n    folded\n    text\n" +
		"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\ndata:\n  k: plain\n...\n",
}

// TestEncodeFilePerDocument checks that encodeFile's encoder per document
// writes the bytes one encoder for the whole file writes, on the cases
// above and on every YAML file of testdata/ (and of the corpus
// PORCHBOT_CONFORMANCE_DIR names, when set).
func TestEncodeFilePerDocument(t *testing.T) {
	files := map[string][]byte{}
	for name, s := range encodeFileCases {
		files[name] = []byte(s)
	}
	corpora := []string{"../../testdata"}
	if shared := conformanceCorpus(""); shared != "" {
		corpora = append(corpora, shared)
	} else {
		t.Log("PORCHBOT_CONFORMANCE_DIR is not set: the project's testdata/ only, no outside corpus")
	}
	for _, dir := range corpora {
		_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml")) {
				if b, err := os.ReadFile(p); err == nil {
					files[p] = b
				}
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("only %d files to compare", len(files))
	}
	compared := 0
	for name, b := range files {
		read := func() []*yaml.RNode {
			nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(b), PreserveSeqIndent: true,
				WrapBareSeqNode: true}).Read()
			if err != nil {
				return nil
			}
			return nodes
		}
		want := read()
		if len(want) == 0 {
			continue // not KRM, or not YAML at all (attacks, broken files)
		}
		wantBytes := streamEncode(t, want)
		got, err := encodeFile(read())
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, wantBytes) {
			t.Errorf("%s: encoder per document wrote\n%s\none encoder writes\n%s", name, got, wantBytes)
		}
		compared++
	}
	t.Logf("%d files compared", compared)
}
