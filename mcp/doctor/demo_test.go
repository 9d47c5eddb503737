package doctor_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// TestDemoServerHasNoErrors: mcpscope's own demo server, in both eras,
// discovered in full and listed twice, breaks no error-severity rule.
func TestDemoServerHasNoErrors(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(era.String(), func(t *testing.T) {
			tr := &mcp.StdioTransport{Command: os.Args[0], Args: []string{"demo-server"}, Grace: 300 * time.Millisecond}
			s := run(t, tr, mcp.Options{Era: era, Discover: true}, doctor.Options{}, func(ctx context.Context, c *mcp.Client) {
				c.DiscoverAll(ctx)
				_, _ = c.Call(ctx, "ping", nil)
			})
			if s.connectErr != nil {
				t.Fatalf("connect: %v", s.connectErr)
			}
			var errs []string
			for _, d := range s.diags {
				if d.Severity == mcp.SeverityError {
					errs = append(errs, d.Rule+": "+d.Message)
				} else {
					t.Logf("%s %s: %s", d.Severity, d.Rule, d.Message)
				}
			}
			if len(errs) > 0 {
				t.Errorf("error diagnostics on the demo server:\n  %s", strings.Join(errs, "\n  "))
			}
		})
	}
}
