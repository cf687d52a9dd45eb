package builtins

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// log-export.tf (from v0.2.0): each LoggingLogSink of the package, a module
// of terraform-google-modules/log-export at the organization, and for every
// sink the module of its destination (BigQuery dataset, Pub/Sub topic,
// storage bucket or log bucket), in the project the destination names.

const logExportModule = "terraform-google-modules/log-export/google"

func writeTFLogExport(h *tfHCL) {
	for _, sink := range h.m.byKind["LoggingLogSink"] {
		if h.failed() {
			return
		}
		sinkName := h.name(sink)
		if sink.created() {
			// the first destination named
			dest := ""
			for _, kind := range []string{"BigQueryDataset", "PubSubTopic", "StorageBucket", "LoggingLogBucket"} {
				if t := sink.refs[kind]; t != nil {
					dest = h.name(t)
					break
				}
			}
			h.write("\nmodule \"logsink-", sinkName, "\" {\n  source  = \""+logExportModule+"\"\n  version = \"~> 7.3.0\"\n",
				tfField("destination_uri", 21), "module.", dest, "-destination.destination_uri",
				tfField("log_sink_name", 21), `"`, sink.displayName(), `"`)
			org := h.orgID(sink, tfSite{"log-export.tf", "8:36", "$logsink.GetOrganization.GetTerraformId"})
			if h.failed() {
				return
			}
			h.write(tfField("parent_resource_id", 21), org, tfField("parent_resource_type", 21), `"organization"`,
				tfField("include_children", 21), "true\n}\n")
		}
		writer := "module.logsink-" + sinkName + ".writer_identity"
		if d := sink.refs["BigQueryDataset"]; d != nil {
			h.datasetDestination(d, writer)
		}
		if t := sink.refs["PubSubTopic"]; t != nil && !h.failed() {
			h.destination(t, tfSite{"log-export.tf", "28:46", ".Parent.GetResourceName"}, "pubsub", "topic_name", 25)
			h.write(tfField("log_sink_writer_identity", 25), writer, "\n}\n")
		}
		if b := sink.refs["StorageBucket"]; b != nil && !h.failed() {
			h.bucketDestination(b, writer)
		}
		if b := sink.refs["LoggingLogBucket"]; b != nil && !h.failed() {
			h.logBucketDestination(b, writer)
		}
	}
}

// tfField starts a line "  key = " with its = at column col.
func tfField(key string, col int) string {
	return "\n  " + key + strings.Repeat(" ", max(col-len(key), 1)) + "= "
}

// destination writes the head of destination d's module: its source,
// version and project, and its name under key, its = at column col.
func (h *tfHCL) destination(d *tfResource, site tfSite, module, key string, col int) {
	name := h.name(d)
	version := "7.3.0"
	if module == "logbucket" {
		version = "7.4.1"
	}
	h.write("\nmodule \"", name, "-destination\" {\n  source  = \""+logExportModule+"//modules/", module,
		"\"\n  version = \"~> ", version, "\"\n", tfField("project_id", col), "module.")
	project := h.parentName(d, site)
	h.write(project, ".project_id", tfField(key, col), `"`, name, `"`)
}

func (h *tfHCL) datasetDestination(d *tfResource, writer string) {
	h.destination(d, tfSite{"log-export.tf", "17:46", ".Parent.GetResourceName"}, "bigquery", "dataset_name", 25)
	if h.failed() {
		return
	}
	h.write(tfField("log_sink_writer_identity", 25), writer)
	if ms := d.fields.integer("spec", "defaultTableExpirationMs"); ms != 0 {
		days, err := millisToDays(ms)
		if err != nil {
			h.fail(tfSite{"log-export.tf", "20:37", "msToDays"}, "msToDays", err.Error())
			return
		}
		h.write(tfField("expiration_days", 25), `"`, fmt.Sprint(days), `"`)
	}
	if loc := d.fields.str("spec", "location"); loc != "" {
		h.write(tfField("location", 25), `"`, loc, `"`)
	}
	h.write("\n}\n")
}

func (h *tfHCL) bucketDestination(b *tfResource, writer string) {
	h.destination(b, tfSite{"log-export.tf", "37:49", ".Parent.GetResourceName"}, "storage", "storage_bucket_name", 28)
	if h.failed() {
		return
	}
	h.write(tfField("log_sink_writer_identity", 28), writer, tfField("uniform_bucket_level_access", 28),
		strconv.FormatBool(b.fields.boolean(h.m.release, "spec", "uniformBucketLevelAccess")))
	if loc := b.fields.str("spec", "location"); loc != "" {
		h.write(tfField("location", 28), `"`, loc, `"`)
	}
	if class := b.fields.str("spec", "storageClass"); class != "" {
		h.write(tfField("storage_class", 28), `"`, class, `"`)
	}
	if period := b.fields.integer("spec", "retentionPolicy", "retentionPeriod"); period != 0 {
		days, err := millisToDays(period * 1000) // an int, overflowing as the release's does
		if err != nil {
			h.fail(tfSite{"log-export.tf", "44:84", "sToDays"}, "sToDays", err.Error())
			return
		}
		h.write("\n  retention_policy = {\n    retention_period_days = ", fmt.Sprint(days), ",\n    is_locked             = ",
			strconv.FormatBool(b.fields.boolean(h.m.release, "spec", "retentionPolicy", "isLocked")), "\n  }")
	}
	h.write("\n}\n")
}

func (h *tfHCL) logBucketDestination(b *tfResource, writer string) {
	h.destination(b, tfSite{"log-export.tf", "53:46", ".Parent.GetResourceName"}, "logbucket", "name", 25)
	if h.failed() {
		return
	}
	if loc := b.fields.str("spec", "location"); loc != "" {
		h.write(tfField("location", 25), `"`, loc, `"`)
	}
	if days := b.fields.integer("spec", "retentionDays"); days != 0 {
		h.write(tfField("retention_days", 25), strconv.Itoa(days))
	}
	h.write(tfField("log_sink_writer_identity", 25), writer, "\n}\n")
}

// millisToDays is the release's msToDays: a duration in milliseconds, as
// time.ParseDuration reads it, in days rounded to two decimals.
func millisToDays(ms int) (float64, error) {
	d, err := time.ParseDuration(strconv.Itoa(ms) + "ms")
	if err != nil {
		return 0, err
	}
	return math.Round(d.Hours()/24*100) / 100, nil
}
