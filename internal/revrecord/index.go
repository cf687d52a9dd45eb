package revrecord

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// The package index branch (porch/index) is porchbot's too: each of its
// commits carries, as the last line of its message, an HMAC under the
// records' key over the repository and the bytes of the index.yaml it
// holds. A commit someone else pushed there (invented approvers,
// descriptions, links) has none that verifies: porchbot ignores its index,
// rebuilds from the tags and the Kptfiles, and the catalog shows the index
// built that way.

// indexTrailer starts the signature line of an index commit's message.
const indexTrailer = "Porchbot-Index-Signature: "

func indexSignature(key []byte, repo string, data []byte) string {
	sum := sha256.Sum256(data)
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "porchbot:index\x00%s\x00%x", strings.ToLower(repo), sum)
	return hex.EncodeToString(mac.Sum(nil))
}

// SignIndexMessage ends message with the signature of data, the index.yaml
// the commit holds, in repo.
func SignIndexMessage(key []byte, repo string, data []byte, message string) string {
	return strings.TrimRight(message, "\n") + "\n\n" + indexTrailer + indexSignature(key, repo, data) + "\n"
}

// IndexSigned says whether an index commit's message carries the valid
// signature of data in repo.
func IndexSigned(key []byte, repo string, data []byte, message string) bool {
	want := indexSignature(key, repo, data)
	for _, line := range strings.Split(message, "\n") {
		if sig, ok := strings.CutPrefix(strings.TrimSpace(line), indexTrailer); ok && hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}
