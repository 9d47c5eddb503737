package auth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// ParsePrivateKeyPEM reads a PKCS #8 (or SEC 1 / PKCS #1) private key for
// private_key_jwt client authentication and returns it with its JWS
// algorithm: ES256 for a P-256 key, RS256 for RSA.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, string, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, "", errors.New("the private key is not PEM")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, "", fmt.Errorf("the private key cannot be parsed: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, "", fmt.Errorf("a %T cannot sign", key)
	}
	alg, err := algFor(signer)
	return signer, alg, err
}

func algFor(k crypto.Signer) (string, error) {
	switch pub := k.Public().(type) {
	case *ecdsa.PublicKey:
		if pub.Curve.Params().BitSize == 256 {
			return "ES256", nil
		}
		return "", fmt.Errorf("only P-256 EC keys are supported, not %s", pub.Curve.Params().Name)
	case *rsa.PublicKey:
		return "RS256", nil
	}
	return "", fmt.Errorf("unsupported key type %T", k.Public())
}

// signClientAssertion makes the RFC 7523 client assertion: iss = sub =
// client id, aud = the authorization server's issuer (a string, not a
// one-element array), valid five minutes.
func signClientAssertion(key crypto.Signer, alg, clientID, audience string, now time.Time) (string, error) {
	if key == nil {
		return "", errors.New("private_key_jwt needs a signing key")
	}
	if alg == "" {
		var err error
		if alg, err = algFor(key); err != nil {
			return "", err
		}
	}
	method := jwt.GetSigningMethod(alg)
	if alg != "ES256" && alg != "RS256" || method == nil {
		return "", fmt.Errorf("signing algorithm %q is not supported (ES256, RS256)", alg)
	}
	claims := jwt.MapClaims{
		"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": rand.Text(),
	}
	signed, err := jwt.NewWithClaims(method, claims).SignedString(key)
	if err != nil {
		return "", fmt.Errorf("signing the client assertion with %s: %w", alg, err)
	}
	return signed, nil
}
