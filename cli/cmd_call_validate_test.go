package cli

import (
	"strings"
	"testing"
)

// Arguments are checked against the tool's inputSchema before they are
// sent, with the form's validator and wording.
func TestCallValidatesToolArgsBeforeSending(t *testing.T) {
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "book_trip",
		"--tool-args-json", `{"traveller": {}, "legs": [], "payment": {"company": "ACME"}}`)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d (usage): %v\n%s", code, exitUsage, err, out)
	}
	msg := err.Error()
	for _, want := range []string{"/traveller/name is required", "/legs has fewer than minItems (1)", "--no-validate"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q:\n%s", want, msg)
		}
	}
	if strings.Contains(out, "Booked") {
		t.Errorf("the invalid call was sent: %s", out)
	}
}

func TestCallNoValidateSendsAnyway(t *testing.T) {
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "book_trip", "--no-validate",
		"--tool-args-json", `{"traveller": {}, "legs": [], "payment": {"company": "ACME"}}`)
	// The server sees the arguments and answers for itself (the SDK
	// rejects them: a tool error or a protocol error, never our exit 2).
	if code == exitUsage {
		t.Fatalf("--no-validate still refused: %v\n%s", err, out)
	}
	if !strings.Contains(out, "name") && !strings.Contains(out, "legs") && err == nil {
		t.Errorf("no sign the server judged the arguments: %s", out)
	}
}

func TestCallValidArgsPass(t *testing.T) {
	out, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "book_trip", "--tool-args-json",
		`{"traveller": {"name": "Ada"}, "legs": [{"from": "LHR", "to": "CDG", "date": "2026-01-02"}], "payment": {"company": "ACME"}}`)
	if code != exitOK || !strings.Contains(out, "Booked 1 leg for Ada") {
		t.Fatalf("exit %d: %v\n%s", code, err, out)
	}
}

// Typed --tool-arg values are validated too, after conversion.
func TestCallValidatesTypedToolArgs(t *testing.T) {
	_, err, code := runCLI(t, "call", "--method", "tools/call", "--tool-name", "slow_count", "--tool-arg", "steps=0")
	if code != exitUsage || !strings.Contains(err.Error(), "/steps is less than minimum (1)") {
		t.Fatalf("exit %d: %v", code, err)
	}
}
