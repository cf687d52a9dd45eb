package builtins

import "io"

// The catalog's releases of each built-in (kptdev/krm-functions-catalog tags
// functions/go/<name>/vX.Y.Z, earlier <name>/vX.Y.Z), oldest first, each with
// the behaviour that reproduces it; notReproduced marks a release porchbot
// does not reproduce, so that a Kptfile naming it fails instead of running
// another release's behaviour. The golden cases in testdata/builtin-versions,
// recorded from the releases built at their tags, are the evidence; the
// corpus-bound releases below are the exception.
//
// render's runner and sandbox build starlark with builtins.NewStarlark from
// the resolved release.

func releases(fn processFunc, versions ...string) []release {
	out := make([]release, 0, len(versions))
	for _, v := range versions {
		out = append(out, release{version: v, new: func() Function { return wrap(fn) }})
	}
	return out
}

// onOldFramework marks releases built on kyaml v0.10–v0.11's function framework
// (see Unreconciled).
func onOldFramework(rs []release) []release {
	for i := range rs {
		newFn := rs[i].new
		rs[i].new = func() Function {
			f := newFn()
			if k, ok := f.(*kptFunction); ok {
				k.unreconciled = true
			}
			return f
		}
	}
	return rs
}

func notReproduced(versions ...string) []release {
	out := make([]release, 0, len(versions))
	for _, v := range versions {
		out = append(out, release{version: v})
	}
	return out
}

// The render conformance corpus (testdata/conformance/render) names
// set-namespace:v0.4.1, set-labels:v0.2.0, set-annotations:v0.1.4,
// set-image:v0.1.1, apply-setters:v0.2.0, apply-replacements:v0.1.1 and
// starlark:v0.4.3, and records what the catalog's June 2025 source does with
// its packages; those releases keep that behaviour (see docs/functions.md for
// where the release images themselves differ from it).

func applyReplacementsReleases() []release {
	return append(releases(applyReplacementsV010, "v0.1.0"),
		releases(applyReplacements, "v0.1.1", "v0.1.2")...)
}

func applySettersReleases() []release {
	return releases(applySetters, "v0.1.0", "v0.1.1", "v0.2.0", "v0.2.1")
}

func createSettersReleases() []release {
	return onOldFramework(releases(createSettersV010, "v0.1.0"))
}

func ensureNameSubstringReleases() []release {
	return append(append(releases(ensureNameSubstringV01{withoutLocalConfig: true}.process, "v0.1.0"),
		releases(ensureNameSubstringV01{}.process, "v0.1.1")...),
		releases(ensureNameSubstringKyaml010, "v0.2.0")...)
}

func searchReplaceReleases() []release {
	return append(append(releases(searchReplaceV01{}.process, "v0.1.0"), releases(searchReplaceV01{strict: true}.process, "v0.1.1")...),
		releases(searchReplace, "v0.2.0")...)
}

func setAnnotationsReleases() []release {
	return append(releases(setAnnotationsUnstructured, "v0.1.3"),
		releases(setAnnotations, "v0.1.4")...)
}

func setImageReleases() []release {
	return append(releases(setImageThroughJSON, "v0.1.0"),
		releases(setImage, "v0.1.1")...)
}

func setLabelsReleases() []release {
	return append(append(releases(setLabelsResmap{unstructured: true}.process, "v0.1.3", "v0.1.4"),
		releases(setLabelsResmap{}.process, "v0.1.5")...),
		releases(setLabels, "v0.2.0", "v0.2.1")...)
}

func setNamespaceReleases() []release {
	var out []release
	out = append(out, releases(setNamespaceResmap{unstructured: true}.process, "v0.1.0", "v0.1.1", "v0.1.2", "v0.1.3")...)
	out = append(out, releases(setNamespaceResmap{}.process, "v0.1.4")...)
	out = append(out, releases(setNamespaceResmap{serviceAccounts: true}.process, "v0.2.0")...)
	out = append(out, releases(setNamespaceSDK{}.process, "v0.3.0", "v0.3.1")...)
	out = append(out, releases(setNamespaceSDK{allBindings: true}.process, "v0.3.2")...)
	out = append(out, releases(setNamespaceSDK{allBindings: true, results: 3}.process, "v0.3.3")...)
	out = append(out, releases(setNamespaceSDK{allBindings: true, results: 4}.process, "v0.3.4")...)
	out = append(out, releases(setNamespaceSDK{v4: true}.process, "v0.4.0")...)
	return append(out, releases(setNamespace, "v0.4.1")...)
}

func fixReleases() []release {
	return onOldFramework(append(releases(fixRelease{}.process, "v0.2.0"), releases(fixRelease{v021: true}.process, "v0.2.1")...))
}

func formatReleases() []release {
	return onOldFramework(releases(formatV010, "v0.1.0"))
}

func listSettersReleases() []release {
	return onOldFramework(releases(listSettersV010, "v0.1.0"))
}

func removeLocalConfigResourcesReleases() []release {
	return onOldFramework(releases(removeLocalConfigResources, "v0.1.0"))
}

func setNamePrefixReleases() []release {
	return releases(setNamePrefix, "v0.0.1", "v0.0.2", "v0.0.3")
}

func upsertResourceReleases() []release {
	return onOldFramework(append(releases(upsertResource{v01: true}.process, "v0.1.0"),
		releases(upsertResource{}.process, "v0.2.0")...))
}

func starlarkReleases() []release {
	out := starlarkReleasesOf(&starlarkV010, "v0.1.0")
	out = append(out, starlarkReleasesOf(&starlarkV011, "v0.1.1")...)
	out = append(out, starlarkReleasesOf(&starlarkV012, "v0.1.2")...)
	out = append(out, starlarkReleasesOf(&starlarkV021, "v0.2.0", "v0.2.1")...)
	out = append(out, starlarkReleasesOf(&starlarkV02, "v0.2.2")...)
	out = append(out, starlarkReleasesOf(&starlarkV03, "v0.3.0")...)
	out = append(out, starlarkReleasesOf(&starlarkSDK2022, "v0.4.0", "v0.4.1", "v0.4.2")...)
	return append(out, starlarkReleasesOf(&starlarkSDK, "v0.4.3", "v0.5.0", "v0.5.1")...)
}

// starlarkReleasesOf are starlark releases of one era; the runner and the
// sandbox build them with NewStarlark, to give the program's print output
// somewhere to go.
func starlarkReleasesOf(era *starlarkEra, versions ...string) []release {
	out := releases(starlarkRunTo(*era, io.Discard), versions...)
	for i := range out {
		out[i].era = era
	}
	return out
}

// kubeval's catalog releases are TypeScript functions around kubeval
// v0.16.1 (functions/ts/kubeval, tags kubeval/vX.Y.Z); kubevalRelease says
// what differs between them.
func kubevalCatalogReleases() []release {
	return kubevalReleases("v0.1.0", "v0.1.1", "v0.1.2", "v0.2.0", "v0.2.1", "v0.3.0")
}

// kubeconform's catalog function (functions/go/kubeconform) is newer than
// porchbot's copy of the catalog: porchbot reproduces it as kpt
// v1.0.0-beta.67's fn-render suite recorded its `latest` image, and ties
// no release tag to that behaviour, so it runs kubeconform only as latest
// (or untagged) and refuses every tag.
func kubeconformReleases() []release {
	return validatorReleases(nil, latestOnly)
}

// render-helm-chart's releases bundle a helm binary (v0.1.0 Helm v3.6.3,
// v0.2.x v3.8.0, v0.3.0 v3.11.1) whose client-only Kubernetes version comes
// from its client-go (v3.6.3: v1.20.0, a constant of its source);
// helmChartRelease says what else differs.
func renderHelmChartReleases() []release {
	out := renderHelmChartRelease(helmChartRelease{kube: "v1.20.0", v010: true}, "v0.1.0")
	out = append(out, renderHelmChartRelease(helmChartRelease{kube: "v1.23.0", cutsOnDashes: true, schemeOnly: true}, "v0.2.0")...)
	out = append(out, renderHelmChartRelease(helmChartRelease{kube: "v1.23.0", cutsOnDashes: true}, "v0.2.1")...)
	out = append(out, renderHelmChartRelease(helmChartRelease{kube: "v1.23.0"}, "v0.2.2")...)
	return append(out, renderHelmChartRelease(helmChartRelease{kube: "v1.26.0"}, "v0.3.0")...)
}
