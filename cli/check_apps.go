package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/apps"
	"github.com/mcpscope/mcpscope/mcp/apps/host"
	"github.com/mcpscope/mcpscope/mcp/doctor/report"
	"github.com/mcpscope/mcpscope/mcp/lib/chromium"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
)

// renderBudget bounds one view's render: load, handshake, result, quiet.
const renderBudget = 30 * time.Second

// checkApps renders the view of each tool that names one in headless
// Chromium, on the same host and bridge as the TUI's preview, and returns
// the findings. A server without views starts no browser; without a
// browser it says so once on stderr and the static rules stand alone.
func checkApps(ctx context.Context, c *mcp.Client, items []json.RawMessage, rep *report.Report, f *checkFlags, stderr io.Writer) []report.Diagnostic {
	var viewTools []json.RawMessage
	for _, it := range items {
		if apps.ParseTool(it).HasView() {
			viewTools = append(viewTools, it)
		}
	}
	rep.Apps = &report.Apps{Views: []report.AppView{}}
	if len(viewTools) == 0 {
		rep.Apps.Skipped = "no tool names a view"
		return nil
	}
	skip := func(why string) []report.Diagnostic {
		rep.Apps.Skipped = why
		_, _ = fmt.Fprintf(stderr, "mcpscope check --apps: %s; the views were not rendered, the static rules ran\n", termsafe.String(why))
		return nil
	}
	path, err := chromium.Find(f.browser)
	if err != nil {
		return skip(err.Error())
	}
	launchCtx, cancel := context.WithTimeout(ctx, time.Minute)
	b, err := chromium.Launch(launchCtx, path)
	cancel()
	if err != nil {
		return skip(err.Error())
	}
	defer func() { _ = b.Close() }()
	rep.Apps.Browser = path
	// Every bridge message and report is a row of the session (and of its
	// --record file), next to the frames it caused.
	srv, err := host.Start(host.Options{Version: mcp.ClientVersion, Forward: host.ClientForwarder(c),
		OnEvent: func(e host.Event) { c.Note(e.Row()) }, Tools: func() []json.RawMessage { return items }})
	if err != nil {
		return skip(err.Error())
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Close(closeCtx)
	}()
	if f.screenshots != "" {
		if err := os.MkdirAll(f.screenshots, 0o755); err != nil {
			_, _ = fmt.Fprintf(stderr, "mcpscope check --apps: --screenshots: %v\n", err)
			f.screenshots = ""
		}
	}
	var out []report.Diagnostic
	names := map[string]bool{}
	for _, tool := range viewTools {
		if ctx.Err() != nil || c.Err() != nil {
			break
		}
		d, av := renderOne(ctx, c, b, srv, tool, f, names)
		out = append(out, d...)
		rep.Apps.Views = append(rep.Apps.Views, av)
	}
	return out
}

// renderOne calls one tool, renders its view and judges it.
func renderOne(ctx context.Context, c *mcp.Client, b *chromium.Browser, srv *host.Server, tool json.RawMessage, f *checkFlags, names map[string]bool) ([]report.Diagnostic, report.AppView) {
	tv := apps.ParseTool(tool)
	var head struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	_ = json.Unmarshal(tool, &head)
	av := report.AppView{Tool: head.Name, Template: tv.URI(), Dialect: tv.Dialect().String()}
	who := fmt.Sprintf("The view of %s (%s)", termsafe.String(head.Name), termsafe.String(tv.URI()))
	fail := func(why string) ([]report.Diagnostic, report.AppView) {
		av.Error = why
		return []report.Diagnostic{report.PreviewFinding(report.RuleViewNotRendered, who+": "+why+".")}, av
	}
	args, err := minimalArguments(head.InputSchema)
	if err != nil {
		return fail("no arguments to call the tool with: " + err.Error())
	}
	rawArgs, _ := json.Marshal(args)
	opts := []mcp.CallOption{mcp.WithTimeoutResetOnProgress()}
	if f.callTimeout > 0 {
		opts = append(opts, mcp.WithTimeout(f.callTimeout), mcp.WithTimeoutMax(callMaximum(f.callTimeout)))
	}
	resp, err := c.Call(ctx, mcp.MethodToolsCall, map[string]any{"name": head.Name, "arguments": json.RawMessage(rawArgs)}, opts...)
	if err != nil {
		return fail("the tool call failed: " + err.Error())
	}
	v, err := host.ReadView(ctx, c, tool, rawArgs, resp.Result, nil)
	if err != nil {
		return fail(err.Error())
	}
	view := srv.Add(v)
	rctx, cancel := context.WithTimeout(ctx, renderBudget)
	defer cancel()
	r, err := host.Render(rctx, b, view, 1000, 800)
	if r != nil && r.Page != nil {
		defer func() {
			tctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			srv.Teardown(tctx, view) // before the page goes, as a host removes a view
			_ = r.Page.Close(tctx)
		}()
	}
	findings := host.Findings(view)
	for _, e := range view.Events() {
		if e.Kind == host.KindBridge {
			av.Messages++
		}
	}
	if err != nil {
		av.Error = err.Error()
		return append(findings, report.PreviewFinding(report.RuleViewNotRendered, who+": "+termsafe.String(err.Error())+".")), av
	}
	av.Delivered = r.Delivered
	if f.screenshots != "" && len(r.PNG) > 0 {
		name := screenshotName(head.Name, names)
		p := filepath.Join(f.screenshots, name)
		if err := os.WriteFile(p, r.PNG, 0o644); err == nil {
			av.Screenshot = p
		}
	}
	return findings, av
}

// screenshotName is a file name for a tool's picture: its name with only
// letters, digits, dot, dash and underscore, cut to 100 bytes, made unique.
func screenshotName(tool string, taken map[string]bool) string {
	var b strings.Builder
	for _, r := range tool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 100 {
			break
		}
	}
	base := strings.TrimLeft(b.String(), ".")
	if base == "" {
		base = "view"
	}
	name := base + ".png"
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s-%d.png", base, i)
	}
	taken[name] = true
	return name
}
