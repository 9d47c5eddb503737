package cli

import (
	"strings"
	"testing"
)

// A result longer than the line limit is not silence: call names its
// size, the limit and how to raise it, as mcpscope's limit rather than
// the server's broken JSON; raised with --max-line-mib, it reads whole.
func TestCallNamesTheLineLimitAndRaisesIt(t *testing.T) {
	args := func(limit string) []string {
		a := []string{"call", "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=hi", "--timeout", "2s", "--max-line-mib", limit,
			"-e", "MCPSCOPE_FAKE_BIG=3000000"}
		return append(a, fakeArgs("big-line")...)
	}
	out, err, code := runCLI(t, args("1")...)
	if code == exitOK {
		t.Fatalf("a 3 MB answer under a 1 MiB limit exited 0:\n%.500s", out)
	}
	msg := out
	if err != nil {
		msg += err.Error()
	}
	for _, want := range []string{"framing/line-over-limit", "a line of 2.9 MiB (30000", "limit of 1.0 MiB", "--max-line-mib"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the output does not say %q:\n%.1500s", want, msg)
		}
	}
	if strings.Contains(msg, "framing/non-json-stdout") {
		t.Errorf("the cut line is blamed on the server as invalid JSON:\n%.1500s", msg)
	}

	out, err, code = runCLI(t, args("4")...)
	if code != exitOK || !strings.Contains(out, strings.Repeat("x", 1000)) {
		t.Fatalf("under a 4 MiB limit: exit %d (%v), output %d bytes", code, err, len(out))
	}

	if _, err, code := runCLI(t, "call", "--method", "ping", "--max-line-mib", "0"); code == exitOK || err == nil || !strings.Contains(err.Error(), "--max-line-mib 0") {
		t.Errorf("--max-line-mib 0: exit %d, %v; want a usage error naming it", code, err)
	}
}
