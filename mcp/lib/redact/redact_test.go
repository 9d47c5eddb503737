package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	for in, want := range map[string]string{
		"https://h/mcp?api_key=SECRET&page=2":                 "https://h/mcp?api_key=[redacted]&page=2",
		"POST /mcp?access_token=SECRET → 200":                 "POST /mcp?access_token=[redacted] → 200",
		"GET /cb?code=SECRET&state=s1":                        "GET /cb?code=[redacted]&state=s1",
		"x?X-Amz-Signature=SECRET;Password=SECRET#sig=SECRET": "x?X-Amz-Signature=[redacted];Password=[redacted]#sig=[redacted]",
		"https://h/mcp?page=2&q=hello":                        "https://h/mcp?page=2&q=hello",
		"plain text, no query":                                "plain text, no query",
		"dial postgres://me:SECRET@db:5432/x failed":          "dial postgres://me:[redacted]@db:5432/x failed",
		"mail me@example.com":                                 "mail me@example.com",
	} {
		if got := URLs(in); got != want {
			t.Errorf("URLs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsSecretField(t *testing.T) {
	for _, name := range []string{"code", "code_verifier", "client_secret", "client_assertion", "assertion", "access_token",
		"refresh_token", "id_token", "password", "registration_access_token", "subject_token", "clientSecret", "accessToken",
		"api-key", "api_key", "apikey", "token", "secret", "OPENAI_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "device_code"} {
		if !IsSecretField(name) {
			t.Errorf("IsSecretField(%q) = false", name)
		}
	}
	for _, name := range []string{"token_endpoint", "token_type", "expires_in", "scope", "state", "code_challenge",
		"code_challenge_method", "token-file", "api-key-env", "max_tokens", "error_code", "client_id", "AWS_ACCESS_KEY_ID",
		"issued_token_type", "client_assertion_type", "grant_type", "PORT", "keyboard"} {
		if IsSecretField(name) {
			t.Errorf("IsSecretField(%q) = true", name)
		}
	}
}

func TestArgs(t *testing.T) {
	in := []string{"node", "server.js", "--api-key", "S1", "--api-key=S2", "--token=S3", "-password", "S4",
		"--client-secret=S5", "OPENAI_API_KEY=S6", "GITHUB_TOKEN=S7", "--url", "https://h/mcp?api_key=S8",
		"-H", "Authorization: Bearer S9", "--token-file", "/keep/this", "--port", "8080", "--verbose",
		"--password", "--next", "NAME=keep", "--secret=", "https://u:S10@h/"}
	want := []string{"node", "server.js", "--api-key", Marker, "--api-key=" + Marker, "--token=" + Marker, "-password", Marker,
		"--client-secret=" + Marker, "OPENAI_API_KEY=" + Marker, "GITHUB_TOKEN=" + Marker, "--url", "https://h/mcp?api_key=" + Marker,
		"-H", "Authorization: Bearer " + Marker, "--token-file", "/keep/this", "--port", "8080", "--verbose",
		"--password", "--next", "NAME=keep", "--secret=", "https://u:" + Marker + "@h/"}
	orig := slices.Clone(in)
	got := Args(in)
	if !slices.Equal(got, want) {
		t.Errorf("Args:\n got %q\nwant %q", got, want)
	}
	if !slices.Equal(in, orig) {
		t.Error("Args changed its argument")
	}
	if got := Command("node s.js --api-key  S1 --port 1"); got != "node s.js --api-key  "+Marker+" --port 1" {
		t.Errorf("Command = %q", got)
	}
}

func TestHeader(t *testing.T) {
	for _, c := range [][3]string{
		{"Authorization", "Bearer S1", "Bearer [redacted]"},
		{"Proxy-Authorization", "Basic S2", "Basic [redacted]"},
		{"Cookie", "sid=S3; theme=S4", "sid=[redacted]; theme=[redacted]"},
		{"Set-Cookie", "sid=S5; Path=/; HttpOnly", "sid=[redacted]; Path=/; HttpOnly"},
		{"X-Api-Key", "S6", "[redacted]"},
		{"X-Goog-Api-Key", "S7", "[redacted]"},
		{"Location", "http://127.0.0.1/cb?code=S8&state=x", "http://127.0.0.1/cb?code=[redacted]&state=x"},
		{"Content-Type", "application/json", "application/json"},
	} {
		if got := Header(c[0], c[1]); got != c[2] {
			t.Errorf("Header(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

func TestBodyForm(t *testing.T) {
	in := "grant_type=authorization_code&code=S1&code_verifier=S2&client_id=app&client_secret=S3&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&client_assertion=S4&client_assertion_type=urn%3Ax"
	out, names := Body([]byte(in))
	want := "grant_type=authorization_code&code=[redacted]&code_verifier=[redacted]&client_id=app&client_secret=[redacted]&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb&client_assertion=[redacted]&client_assertion_type=urn%3Ax"
	if string(out) != want {
		t.Errorf("form:\n got %s\nwant %s", out, want)
	}
	if !slices.Equal(names, []string{"code", "code_verifier", "client_secret", "client_assertion"}) {
		t.Errorf("names = %q", names)
	}
	plain := []byte("grant_type=client_credentials&scope=a+b")
	if out, names := Body(plain); string(out) != string(plain) || names != nil {
		t.Errorf("a form without secrets changed: %s %q", out, names)
	}
}

func TestBodyJSON(t *testing.T) {
	in := `{ "access_token" : "S1", "token_type":"Bearer","expires_in":3600,
  "refresh_token":"S2","id_token":"S3\"x", "nested":{"client_secret":"S4","list":[{"password":"S5"},"keep"]},
  "token_endpoint":"https://as/token", "empty_token":"", "count_token": 3}`
	out, names := Body([]byte(in))
	if !json.Valid(out) {
		t.Fatalf("not JSON any more: %s", out)
	}
	for _, s := range []string{"S1", "S2", "S3", "S4", "S5"} {
		if strings.Contains(string(out), s) {
			t.Errorf("%s kept: %s", s, out)
		}
	}
	for _, keep := range []string{`"token_type":"Bearer"`, `"expires_in":3600`, `"token_endpoint":"https://as/token"`, `"empty_token":""`, `"count_token": 3`, `"keep"`, "{ \"access_token\" : \"[redacted]\", "} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("%s lost: %s", keep, out)
		}
	}
	if !slices.Equal(names, []string{"access_token", "refresh_token", "id_token", "client_secret", "password"}) {
		t.Errorf("names = %q", names)
	}
	plain := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if out, names := Body(plain); string(out) != string(plain) || names != nil {
		t.Errorf("JSON without secrets changed: %s %q", out, names)
	}
}

func FuzzBody(f *testing.F) {
	f.Add([]byte(`{"access_token":"x","a":[1,{"b":"c"}]}`))
	f.Add([]byte("code=x&state=y"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, names := Body(b)
		if len(names) == 0 && string(out) != string(b) {
			t.Fatalf("changed without a name: %q -> %q", b, out)
		}
		if json.Valid(b) && !json.Valid(out) {
			t.Fatalf("valid JSON became invalid: %q -> %q", b, out)
		}
	})
}
