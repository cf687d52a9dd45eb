package ingress

import (
	"encoding/json"
	"net/http"
)

// messageBody is the JSON body of every answer, as GitHub's API answers.
type messageBody struct {
	Message string `json:"message"`
}

// Answers sent often, encoded once.
var (
	answerQueued = encodeMessage("queued")
	answerPong   = encodeMessage("pong")
)

var (
	contentTypeJSON = []string{"application/json; charset=utf-8"}
	noSniff         = []string{"nosniff"}
)

// encodeMessage returns the JSON body {"message": msg}.
func encodeMessage(msg string) []byte {
	body, err := json.Marshal(messageBody{Message: msg})
	if err != nil {
		// A struct of one string always marshals.
		panic(err)
	}
	return append(body, '\n')
}

// writeMessage answers status with {"message": msg}.
func writeMessage(w http.ResponseWriter, status int, msg string) {
	writeBody(w, status, encodeMessage(msg))
}

// writeBody answers status with body, a JSON document.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h["Content-Type"] = contentTypeJSON
	h["X-Content-Type-Options"] = noSniff
	w.WriteHeader(status)
	// The client may be gone; there is no one left to tell.
	_, _ = w.Write(body)
}
