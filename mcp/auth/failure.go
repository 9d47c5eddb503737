package auth

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Failures whose cause mcpscope can name; each comes wrapped in a
// *Failure that says it in words and says what would fix it.
var (
	// ErrScopeNotGranted: the server requires a scope that was asked for
	// and that the authorization server did not grant. Signing in again
	// asks for the same and gets the same.
	ErrScopeNotGranted = errors.New("the authorization server did not grant a scope the server requires")
	// ErrTokenRefused: the server refused a token issued moments before.
	ErrTokenRefused = errors.New("the server refused a token issued moments ago")
	// ErrAuthorizationRefused: the authorization server refused the
	// authorization request, before or after the person signed in.
	ErrAuthorizationRefused = errors.New("the authorization server refused the authorization request")
	// ErrNoCallback: the browser never came back to the redirect URI.
	ErrNoCallback = errors.New("the browser never came back to the callback")
)

// Failure is an authorization that failed for a reason mcpscope knows: what
// happened, in the words a person needs, and what would fix it. It wraps
// one of the Err values above (with the details). Explain is what the
// doctor's connection diagnosis shows for it.
type Failure struct {
	Cause string
	Fix   string
	Err   error
}

// Error is the failure's class and details, in short; Explain has the
// whole story.
func (f *Failure) Error() string { return f.Err.Error() }

// Unwrap returns the class of the failure (ErrScopeNotGranted, ...).
func (f *Failure) Unwrap() error { return f.Err }

// Explain returns the cause and the fix.
func (f *Failure) Explain() (cause, fix string) { return f.Cause, f.Fix }

// quoted lists scopes for a sentence: "read", "read" and "write".
func quoted(scopes []string) string {
	q := make([]string, len(scopes))
	for i, s := range scopes {
		q[i] = fmt.Sprintf("%q", s)
	}
	switch len(q) {
	case 0:
		return "(none)"
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// missingScopes are the scopes in need that were asked for and not granted.
func missingScopes(need, asked, granted []string) []string {
	var out []string
	for _, s := range need {
		if slices.Contains(asked, s) && !slices.Contains(granted, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// authorizationErrorFix says what an OAuth authorization error response
// (RFC 6749 §4.1.2.1) usually means for the person.
func authorizationErrorFix(code, clientID string, scopes []string) string {
	switch code {
	case "access_denied":
		return fmt.Sprintf("The sign-in was declined, or the account may not use client %s: sign in again and approve, or ask the authorization server's administrator.", clientID)
	case "invalid_scope":
		return fmt.Sprintf("The authorization server does not accept scope %s for client %s: allow it there, or have the server ask for scopes the authorization server knows.", strings.Join(scopes, " "), clientID)
	case "unauthorized_client", "unsupported_response_type":
		return fmt.Sprintf("Client %s may not use the authorization code flow at this authorization server: check the client's grant types there.", clientID)
	case "login_required", "consent_required", "interaction_required":
		return "The authorization server needs the person to sign in or consent: finish it in the browser."
	}
	return fmt.Sprintf("Read the authorization server's description above and check client %s's settings there (redirect URIs, grant types, scopes).", clientID)
}

var titleRE = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

// pageMessage is what an error page says, in a line: an OAuth error's
// fields, a plain-text body, or an HTML page's title; at most 300 bytes.
func pageMessage(h http.Header, body []byte) string {
	if code, desc := oauthError(body); code != "" || desc != "" {
		return strings.TrimSpace(code + " " + desc)
	}
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	text := ""
	switch mt {
	case "text/plain":
		text = string(body)
	case "text/html":
		if m := titleRE.FindSubmatch(body); m != nil {
			text = string(m[1])
		}
	}
	text = strings.Join(strings.Fields(text), " ")
	if len(text) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut] + "…"
	}
	return text
}
