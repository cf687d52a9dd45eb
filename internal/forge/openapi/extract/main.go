// Command extract writes, from the npm packages of GitHub's OpenAPI
// descriptions, the part the forge is checked against into
// testdata/github-openapi (see the README there for the exact command).
//
//	go run ./internal/forge/openapi/extract -rest octokit-openapi-23.0.2.tgz \
//	    -webhooks octokit-openapi-webhooks-12.1.0.tgz -out testdata/github-openapi
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/porchbot/porchbot/internal/forge"
	"github.com/porchbot/porchbot/internal/forge/openapi"
)

func main() {
	rest := flag.String("rest", "", "the npm pack of @octokit/openapi (.tgz)")
	hooks := flag.String("webhooks", "", "the npm pack of @octokit/openapi-webhooks (.tgz)")
	out := flag.String("out", "testdata/github-openapi", "output directory")
	flag.Parse()
	if *rest == "" || *hooks == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*rest, *hooks, *out); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
}

func run(restTgz, hooksTgz, out string) error {
	restFiles, err := readTgz(restTgz)
	if err != nil {
		return err
	}
	hookFiles, err := readTgz(hooksTgz)
	if err != nil {
		return err
	}
	for _, dir := range []string{"rest", "webhooks"} {
		if err := os.MkdirAll(filepath.Join(out, dir), 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(out, "LICENSE"), restFiles["package/LICENSE"], 0o644); err != nil {
		return err
	}
	if !bytes.Equal(restFiles["package/LICENSE"], hookFiles["package/LICENSE"]) {
		if err := os.WriteFile(filepath.Join(out, "LICENSE.webhooks"), hookFiles["package/LICENSE"], 0o644); err != nil {
			return err
		}
	}
	routes := forge.APIRoutes()
	for _, name := range openapi.Descriptions {
		doc, err := decode(restFiles, "package/generated/"+name+".json")
		if err != nil {
			return err
		}
		sub, missing, err := openapi.ExtractREST(doc, routes)
		if err != nil {
			return fmt.Errorf("%s REST: %w", name, err)
		}
		for _, r := range missing {
			fmt.Fprintf(os.Stderr, "%s: no operation answers for %s\n", name, r)
		}
		if err := write(filepath.Join(out, "rest", name+".json"), sub); err != nil {
			return err
		}
		wdoc, err := decode(hookFiles, "package/generated/"+name+".json")
		if err != nil {
			return err
		}
		wsub, wmissing, err := openapi.ExtractWebhooks(wdoc, forge.WebhookKinds)
		if err != nil {
			return fmt.Errorf("%s webhooks: %w", name, err)
		}
		for _, k := range wmissing {
			fmt.Fprintf(os.Stderr, "%s: no webhook %s\n", name, openapi.WebhookKey(k.Event, k.Action))
		}
		if err := write(filepath.Join(out, "webhooks", name+".json"), wsub); err != nil {
			return err
		}
	}
	return nil
}

// readTgz reads the regular files of an npm pack.
func readTgz(path string) (map[string][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, h.Name, err)
		}
		files[h.Name] = b
	}
}

func decode(files map[string][]byte, name string) (map[string]any, error) {
	b, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("the package has no %s", name)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}

// write writes v as indented JSON (keys sorted, so reruns are identical).
func write(path string, v any) error {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
