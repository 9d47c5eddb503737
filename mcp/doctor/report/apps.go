package report

import (
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/doctor"
)

// Apps is what check --apps saw of the tools' views in a headless browser.
type Apps struct {
	// Browser is the Chromium that rendered them; empty when none ran.
	Browser string `json:"browser,omitempty"`
	// Skipped says why no view was rendered (no browser), when none was.
	Skipped string    `json:"skipped,omitempty"`
	Views   []AppView `json:"views"`
}

// AppView is one tool's view as rendered.
type AppView struct {
	Tool     string `json:"tool"`
	Template string `json:"template"`
	Dialect  string `json:"dialect"`
	// Delivered is set when the view initialised and got its result.
	Delivered bool `json:"delivered"`
	// Messages counts the bridge messages both ways.
	Messages int `json:"messages"`
	// Screenshot is the PNG written under --screenshots.
	Screenshot string `json:"screenshot,omitempty"`
	// Error says why the view could not be rendered.
	Error string `json:"error,omitempty"`
}

// The preview rules: findings of check --apps about a view as a browser ran
// it, reported like the doctor's.
const (
	RuleViewNotRendered  = "apps/view-not-rendered"
	RuleViewNoInitialize = "apps/view-no-initialize"
	RuleViewCSP          = "apps/view-csp-violation"
	RuleViewConsole      = "apps/view-console-error"
	RuleViewLoad         = "apps/view-load-failed"
	RuleViewRequest      = "apps/view-request-failed"
	RuleViewBridge       = "apps/view-bridge-error"
	RuleViewHiddenTool   = "apps/view-calls-hidden-tool"
)

const appsSpec = "MCP Apps 2026-01-26 (io.modelcontextprotocol/ui)"

// PreviewRules describes the preview rules for SARIF and JUnit.
func PreviewRules() []doctor.RuleInfo {
	return []doctor.RuleInfo{
		{ID: RuleViewNotRendered, Severity: mcp.SeverityError,
			Summary: "a tool's view could not be rendered: its template could not be read, or the page failed",
			Why:     "A host that cannot read the template shows the tool's text result and nothing of the view; the user sees a broken app.",
			Fix:     "Make the template URI one the server lists and reads, with the HTML in text (or base64 in blob).",
			SpecRef: appsSpec + ", UI resources"},
		{ID: RuleViewNoInitialize, Severity: mcp.SeverityError,
			Summary: "a view sent no ui/initialize within 5 s of loading",
			Why:     "A host sends the tool's input and result only after the handshake: a view that never initialises stays empty.",
			Fix:     "Call app.connect() (or send ui/initialize to window.parent) as the view starts; look at the console rows for the error that stopped it.",
			SpecRef: appsSpec + ", Lifecycle: ui/initialize"},
		{ID: RuleViewCSP, Severity: mcp.SeverityError,
			Summary: "a view loaded or connected to something its CSP does not allow",
			Why:     "Hosts send the resource's CSP (the spec's restrictive default when none is declared); what it blocks is simply missing in every host.",
			Fix:     "Declare the origin in _meta.ui.csp (resourceDomains for scripts, styles, images and fonts; connectDomains for fetch and WebSocket), or bundle the file into the HTML.",
			SpecRef: appsSpec + ", Security: Content Security Policy"},
		{ID: RuleViewConsole, Severity: mcp.SeverityWarning,
			Summary: "a view logged an error or threw one nobody caught",
			Why:     "An uncaught error usually leaves the view half drawn; the host's user has no console to see why.",
			Fix:     "Read the row's message and fix the view's code; catch what the view expects to fail.",
			SpecRef: "not a protocol rule: the view's console"},
		{ID: RuleViewLoad, Severity: mcp.SeverityWarning,
			Summary: "a script, style, image or frame of a view failed to load",
			Why:     "What fails to load in mcpscope's sandbox fails the same way in a host's: a relative URL has no server behind it there.",
			Fix:     "Inline the file into the HTML or load it from an absolute URL the CSP allows.",
			SpecRef: appsSpec + ", UI resources"},
		{ID: RuleViewRequest, Severity: mcp.SeverityError,
			Summary: "a request a view sent through the host (tools/call, resources/read) failed",
			Why:     "The view called the server and got an error, which views often swallow: the user sees a button that does nothing.",
			Fix:     "Check the tool's name and arguments the view sends, and that the tool's visibility includes \"app\".",
			SpecRef: appsSpec + ", Tool and resource access from views"},
		{ID: RuleViewHiddenTool, Severity: mcp.SeverityError,
			Summary: "a view called a tool whose visibility excludes apps",
			Why:     "Hosts refuse a view's tools/call of a tool marked _meta.ui.visibility [\"model\"]: the button that calls it does nothing in a real host.",
			Fix:     "Add \"app\" to the tool's _meta.ui.visibility, or call a tool meant for the view.",
			SpecRef: appsSpec + ", Tool visibility"},
		{ID: RuleViewBridge, Severity: mcp.SeverityError,
			Summary: "a view sent the host a message it cannot use, or did not answer the host",
			Why:     "Hosts drop what is not JSON-RPC 2.0 and wait for answers to their requests (ui/resource-teardown) before they remove the view.",
			Fix:     "Send the bridge's messages with the SDK's App class, or as JSON-RPC 2.0 objects to window.parent.",
			SpecRef: appsSpec + ", Transport: postMessage"},
	}
}

// previewRule reports whether rule is a preview rule, run only with --apps.
func previewRule(rule string) bool {
	return strings.HasPrefix(rule, "apps/view-")
}

// PreviewFinding is a finding of a preview rule with its why, fix and spec.
func PreviewFinding(rule, message string) Diagnostic {
	for _, r := range PreviewRules() {
		if r.ID == rule {
			return Diagnostic{Rule: r.ID, Severity: r.Severity.String(), Message: message, Why: r.Why, Fix: r.Fix, SpecRef: r.SpecRef}
		}
	}
	return Diagnostic{Rule: rule, Severity: mcp.SeverityError.String(), Message: message}
}
