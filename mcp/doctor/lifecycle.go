package doctor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/mcp"
	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// initializeResult checks the legacy handshake's answer: its fields and
// their types, the version, and the capabilities object.
func (l *Linter) initializeResult(f *mcp.Frame, res map[string]json.RawMessage) {
	l.initAnswered = true
	l.modern = false
	var problems []string
	pv, ok := str(res, "protocolVersion")
	if !ok {
		problems = append(problems, "protocolVersion is "+jsonKind(res["protocolVersion"])+", not a string")
	}
	caps, hasCaps := res["capabilities"]
	if !hasCaps {
		problems = append(problems, "capabilities is missing")
	}
	si := object(res["serverInfo"])
	if si == nil {
		problems = append(problems, "serverInfo is "+jsonKind(res["serverInfo"])+", not an object")
	} else {
		for _, k := range []string{"name", "version"} {
			if _, ok := str(si, k); !ok {
				problems = append(problems, "serverInfo."+k+" is "+jsonKind(si[k])+", not a string")
			}
		}
		for _, k := range []string{"name", "title", "version", "description"} {
			if s, ok := str(si, k); ok {
				l.controlChars(f, "serverInfo."+k, s)
			}
		}
	}
	if raw, ok := res["instructions"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			problems = append(problems, "instructions is "+jsonKind(raw)+", not a string")
		} else {
			l.controlChars(f, "instructions", s)
		}
	}
	if len(problems) > 0 {
		l.report("lifecycle/initialize-result-fields", "The initialize result is malformed: "+strings.Join(problems, "; ")+".", f.Seq, f.ReplyTo)
	}
	if ok {
		l.version = pv
		if !slices.Contains(l.opts.ClientVersions, pv) {
			l.report("lifecycle/version-not-offered", fmt.Sprintf("The server answered protocolVersion %q to an offer of %q; the client speaks %s, so it must disconnect.", pv, l.offeredVersion, strings.Join(l.opts.ClientVersions, ", ")), f.Seq, f.ReplyTo)
		}
	}
	if hasCaps {
		l.checkCapabilities(f, caps)
		if isObject(caps) {
			l.serverCaps = caps
		} else {
			l.serverCaps = json.RawMessage(`{}`)
		}
	}
}

// capabilitySubFlags are the boolean members of each server capability.
var capabilitySubFlags = map[string][]string{
	"tools":     {"listChanged"},
	"prompts":   {"listChanged"},
	"resources": {"listChanged", "subscribe"},
}

func (l *Linter) checkCapabilities(f *mcp.Frame, caps json.RawMessage) {
	obj := object(caps)
	if !isObject(caps) || obj == nil {
		l.report("lifecycle/capabilities-not-object", fmt.Sprintf("capabilities is %s, not an object; clients will see no capability at all.", jsonKind(caps)), f.Seq, f.ReplyTo)
		return
	}
	var problems []string
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := obj[k]
		if !isObject(v) {
			problems = append(problems, fmt.Sprintf("%q is %s", k, jsonKind(v)))
			continue
		}
		sub := object(v)
		for _, flag := range capabilitySubFlags[k] {
			if raw, ok := sub[flag]; ok && jsonKind(raw) != "a boolean" {
				problems = append(problems, fmt.Sprintf("%s.%s is %s, not a boolean", k, flag, jsonKind(raw)))
			}
		}
	}
	if len(problems) > 0 {
		l.report("lifecycle/capabilities-not-object", "Capability values must be objects: "+strings.Join(problems, "; ")+".", f.Seq, f.ReplyTo)
	}
}

// earlyMessage flags server requests and notifications sent before the
// legacy initialization ended.
func (l *Linter) earlyMessage(f *mcp.Frame) {
	if l.modern || l.initSeq == 0 || l.initializedSent {
		return
	}
	if f.Kind == mcp.KindRequest && f.Method == mcp.MethodPing {
		return
	}
	if !l.initAnswered {
		l.report("lifecycle/early-message", fmt.Sprintf("The server sent %s %s before answering initialize.", f.Kind, f.Method), f.Seq)
		return
	}
	if f.Kind == mcp.KindNotification && f.Method == mcp.NotifyMessage {
		return
	}
	l.report("lifecycle/early-message", fmt.Sprintf("The server sent %s %s before the client's notifications/initialized.", f.Kind, f.Method), f.Seq)
}

// serverRequest checks a request the server sent to the client.
func (l *Linter) serverRequest(f *mcp.Frame, env envelope) {
	if msg := idProblem(env.ID); msg != "" {
		l.report("framing/id-type", fmt.Sprintf("The server's %s request id %s.", f.Method, msg), f.Seq)
	}
	if strings.HasPrefix(f.Method, "notifications/") {
		l.report("framing/notification-with-id", fmt.Sprintf("%s was sent with id %s, as a request; notifications carry no id.", f.Method, f.ID), f.Seq)
		return
	}
	id := string(f.ID)
	if l.serverIDs.has(id) {
		l.report("framing/reused-request-id", fmt.Sprintf("The server reused request id %s for %s.", id, f.Method), f.Seq)
	}
	l.serverIDs.add(id)
	if l.modern {
		l.report("modern/server-request", fmt.Sprintf("The server sent a %s request, which a 2026-07-28 server must never do.", f.Method), f.Seq)
		return
	}
	l.earlyMessage(f)
	params := object(env.Params)
	switch f.Method {
	case mcp.MethodSamplingCreateMessage:
		l.samplingRequest(f, params)
	case mcp.MethodElicitationCreate:
		l.elicitationRequest(f, params)
	case mcp.MethodRootsList:
		if !l.hasClientCap("roots") {
			l.report("roots/without-capability", "The server asked roots/list, but the client declared no roots capability.", f.Seq)
		}
	}
}

// serverNotification checks a notification the server sent.
func (l *Linter) serverNotification(f *mcp.Frame, env envelope) {
	l.earlyMessage(f)
	params := object(env.Params)
	switch f.Method {
	case mcp.NotifyMessage:
		l.logMessage(f, params)
	case mcp.NotifyToolsListChanged, mcp.NotifyPromptsListChanged, mcp.NotifyResourcesListChanged:
		l.listChanged(f, mcp.ListsChangedBy(f.Method))
	case mcp.NotifyResourcesUpdated:
		l.resourceUpdated(f, params)
	case mcp.NotifyProgress:
		l.progressNotification(f, params)
	case mcp.NotifyCancelled:
		l.cancelled(f, params)
	case mcp.NotifyElicitationComplete:
		l.elicitationComplete(f, params)
	}
}

var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func (l *Linter) logMessage(f *mcp.Frame, params map[string]json.RawMessage) {
	if !l.modern && !l.hasServerCap("logging") {
		l.report("capabilities/notification-without-capability", "The server sent notifications/message without declaring the logging capability.", f.Seq)
	}
	level, _ := str(params, "level")
	if !slices.Contains(logLevels, level) {
		l.report("logging/invalid-level", fmt.Sprintf("Log level %s is not one of %s.", compact(params["level"]), strings.Join(logLevels, ", ")), f.Seq)
	}
	if data, ok := jsonview.String(params["data"]); ok {
		l.controlChars(f, "log message", data)
	}
}

func (l *Linter) listChanged(f *mcp.Frame, lists []mcp.ListMethod) {
	capability := lists[0].Capability // one notification covers lists of one capability
	if !l.hasServerCap(capability, "listChanged") {
		l.report("capabilities/list-changed-without-capability", fmt.Sprintf("The server sent %s without declaring %s.listChanged: true.", f.Method, capability), f.Seq)
	}
	for _, m := range lists {
		l.list(m.Method).notified = true
	}
}

func (l *Linter) resourceUpdated(f *mcp.Frame, params map[string]json.RawMessage) {
	uri, _ := str(params, "uri")
	if !l.hasServerCap("resources", "subscribe") {
		l.report("capabilities/notification-without-capability", fmt.Sprintf("The server sent notifications/resources/updated for %q without declaring resources.subscribe.", uri), f.Seq)
		return
	}
	subscribed := false
	l.subscribed.each(func(s string) bool {
		if uri == s || strings.HasPrefix(uri, strings.TrimSuffix(s, "/")+"/") {
			subscribed = true
		}
		return subscribed
	})
	if !subscribed {
		l.report("capabilities/notification-without-capability", fmt.Sprintf("The server sent notifications/resources/updated for %q, which the client never subscribed to.", uri), f.Seq)
	}
}
