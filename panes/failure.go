package panes

import (
	"errors"
	"fmt"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/termsafe"
	"github.com/mcpscope/mcpscope/themes"
)

// Failure is a request that failed where its result would have been shown
// (a list in its pane, a read or a prompt in the result view): it is shown
// as a failure there, never as an empty result.
type Failure struct {
	Method string // e.g. resources/list
	Err    error  // *mcp.RPCError (the server's), *mcp.LocalError (mcpscope's), or why the answer was unusable
	// Declared says the server declared the capability the method belongs
	// to (false when it was sent anyway).
	Declared bool
	// Retry is the key and words that send it again ("R lists again").
	Retry string
}

// Headline is what failed and how, in one sentence.
func (f Failure) Headline() string {
	return termsafe.String(f.Method + " failed: " + errText(f.Err))
}

// errText is an error as shown in a failure, sanitised by the caller.
func errText(err error) string {
	if err == nil {
		return "no reason given"
	}
	return err.Error()
}

// Try says what the person can do about it, in words.
func (f Failure) Try() string {
	retry := ""
	if f.Retry != "" {
		retry = " " + f.Retry + "."
	}
	var rpc *mcp.RPCError
	var local *mcp.LocalError
	switch {
	case errors.As(f.Err, &rpc) && rpc.Code == mcp.CodeMethodNotFound && f.Declared:
		return "The server declared this capability but does not serve " + f.Method + ": a server bug (Diagnostics, 9, explains it)." + retry
	case errors.As(f.Err, &rpc) && rpc.Code == mcp.CodeMethodNotFound:
		return "The server did not declare this capability, so -32601 is the expected answer."
	case errors.As(f.Err, &rpc) && rpc.Code == mcp.CodeInvalidParams:
		return "The server refused the request's arguments (-32602): its message says which; change them and send again."
	case errors.As(f.Err, &rpc):
		return fmt.Sprintf("The server's own error %d: its message and data say why; the log (1) has the frame.", rpc.Code) + retry
	case errors.As(f.Err, &local) && local.Kind == mcp.Timeout:
		return "mcpscope gave up waiting (no answer from the server; --timeout sets how long)." + retry + " r reconnects."
	case errors.As(f.Err, &local) && local.Kind == mcp.SignInFailed:
		return "mcpscope could not sign in to the server (the log, 1, says why); r reconnects and signs in again."
	case errors.As(f.Err, &local) && local.Kind == mcp.Cancelled:
		return "Cancelled before the server answered." + retry
	case errors.As(f.Err, &local):
		return "The request never got an answer: " + local.Kind.String() + ". r reconnects."
	}
	return "The answer could not be used as a result; the log (1) shows it as it was sent." + retry
}

// failureLines draws a failure in a pane w cells wide: the headline as a
// warning, then what to try, both wrapped whole (never cut).
func failureLines(t *themes.Theme, f Failure, w int) []string {
	var out []string
	for _, l := range wrapWords("⚠ "+f.Headline(), w, 2) {
		out = append(out, t.Form.Warn.Render(l))
	}
	for _, l := range wrapWords(termsafe.String(f.Try()), w, 0) {
		out = append(out, t.Form.Hint.Render(l))
	}
	return out
}

// FailureLines is a failed read or get for the result view: what failed,
// the server's error (code, message, data pretty-printed) or mcpscope's,
// and what to try. W wraps its long lines.
func FailureLines(t *themes.Theme, f Failure) []string {
	out := []string{t.Form.Warn.Render("⚠ " + termsafe.String(f.Method) + " failed"), ""}
	var rpc *mcp.RPCError
	var local *mcp.LocalError
	switch {
	case errors.As(f.Err, &rpc):
		out = append(out, t.Result.Error.Render(fmt.Sprintf("server error %d: ", rpc.Code))+t.Result.Content.Render(termsafe.String(rpc.Message)))
		if len(rpc.Data) > 0 {
			out = append(out, "", t.Detail.Title.Render("error.data"))
			out = append(out, highlightJSON(t, rpc.Data, 2)...)
		}
	case errors.As(f.Err, &local):
		out = append(out, t.Log.LocalError.Render("mcpscope: "+termsafe.String(local.Error())))
	default:
		out = append(out, t.Result.Error.Render(termsafe.String(errText(f.Err))))
	}
	return append(out, "", t.Form.Hint.Render(termsafe.String(f.Try())))
}
