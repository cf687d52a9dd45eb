package core

// RecordKey is the HMAC key of every record porchbot signs (/porch approve
// and requester records, revision tags): every replica derives the same
// key from the shared webhook secret. Without a secret it is a public
// constant, and records rest on their author alone.
func RecordKey(webhookSecret []byte) []byte {
	return append([]byte("porchbot approve records\x00"), webhookSecret...)
}

// SigningKey is the session's key (the Opener's; RecordKey(nil) when none
// was given, as a server without a webhook secret has).
func (s *Session) SigningKey() []byte {
	if len(s.RecordKey) > 0 {
		return s.RecordKey
	}
	return RecordKey(nil)
}
