package demo

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// The spec says requestState is opaque to the client and that an
// unauthenticated server must sign and verify it, because a client can send
// anything back. The demo's state carries no secrets (only the tool name and
// a nonce), so a MAC is enough: "<payload>.<mac>", both base64url.

func (d *demo) signState(tool string) string {
	nonce := make([]byte, 8)
	_, _ = rand.Read(nonce) // crypto/rand does not fail; a zero nonce is still valid
	payload := tool + ":" + base64.RawURLEncoding.EncodeToString(nonce)
	return base64.RawURLEncoding.EncodeToString([]byte(payload)) + "." +
		base64.RawURLEncoding.EncodeToString(d.mac(payload))
}

func (d *demo) verifyState(state, tool string) error {
	enc, sig, ok := strings.Cut(state, ".")
	if !ok {
		return errBadState
	}
	payload, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil {
		return errBadState
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, d.mac(string(payload))) {
		return errBadState
	}
	if name, _, _ := strings.Cut(string(payload), ":"); name != tool {
		return errBadState
	}
	return nil
}

func (d *demo) mac(payload string) []byte {
	m := hmac.New(sha256.New, d.stateKey[:])
	m.Write([]byte(payload))
	return m.Sum(nil)
}
