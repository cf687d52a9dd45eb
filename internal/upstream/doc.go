// Package upstream fetches the upstream of a kpt package (its Kptfile's
// upstream.git: repository, directory, ref) through internal/gitstore:
// it resolves a ref as kpt does and reads the package tree at a commit as
// update.Files, bounded in file count and size.
//
// Ref resolution follows kpt (pkg/lib/util/fetch and internal/gitutil):
//
//  1. a tag "<dir>/<ref>" for the package directory and each of its parent
//     directories, longest first (ref "v2" on directory "/app" finds the
//     tag "app/v2"), so packages of one repository are versioned apart;
//  2. a branch "<ref>";
//  3. a tag "<ref>";
//  4. a commit id (40 hex digits) reachable from a branch or tag.
//
// The resolved Ref is what kpt records as upstreamLock.git.ref ("app/v2");
// the Kptfile's upstream.git.ref keeps what the user asked for ("v2").
package upstream
