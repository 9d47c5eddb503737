package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpscope/mcpscope/mcp/lib/jsonview"
)

// Method names, spelled once. A misspelt method is a request the server
// answers with -32601, so every package uses these instead of literals.
// (mcp/mcptest and mcp/demo keep their own spelling on purpose: they are the
// independent peers the client is tested against.)
const (
	MethodInitialize     = "initialize"
	MethodPing           = "ping"
	MethodServerDiscover = "server/discover" // modern era (2026-07-28)

	MethodToolsList = "tools/list"
	MethodToolsCall = "tools/call"

	MethodPromptsList = "prompts/list"
	MethodPromptsGet  = "prompts/get"

	MethodResourcesList         = "resources/list"
	MethodResourceTemplatesList = "resources/templates/list"
	MethodResourcesRead         = "resources/read"
	MethodResourcesSubscribe    = "resources/subscribe"   // legacy era
	MethodResourcesUnsubscribe  = "resources/unsubscribe" // legacy era
	MethodSubscriptionsListen   = "subscriptions/listen"  // modern era

	MethodLoggingSetLevel    = "logging/setLevel" // legacy era; modern uses _meta
	MethodCompletionComplete = "completion/complete"

	MethodTasksList   = "tasks/list"
	MethodTasksGet    = "tasks/get"
	MethodTasksResult = "tasks/result"
	MethodTasksCancel = "tasks/cancel"

	// Requests the server sends to the client.
	MethodSamplingCreateMessage = "sampling/createMessage"
	MethodElicitationCreate     = "elicitation/create"
	MethodRootsList             = "roots/list"
)

// Notification names.
const (
	NotifyInitialized               = "notifications/initialized"
	NotifyCancelled                 = "notifications/cancelled"
	NotifyProgress                  = "notifications/progress"
	NotifyMessage                   = "notifications/message"
	NotifyToolsListChanged          = "notifications/tools/list_changed"
	NotifyPromptsListChanged        = "notifications/prompts/list_changed"
	NotifyResourcesListChanged      = "notifications/resources/list_changed"
	NotifyResourcesUpdated          = "notifications/resources/updated"
	NotifyRootsListChanged          = "notifications/roots/list_changed"
	NotifyTasksStatus               = "notifications/tasks/status"
	NotifyElicitationComplete       = "notifications/elicitation/complete"
	NotifySubscriptionsAcknowledged = "notifications/subscriptions/acknowledged"
)

// ListMethod describes one paginated list a server offers.
type ListMethod struct {
	Capability  string // the server capability that gates it: "tools"
	Method      string // "tools/list"
	ItemsKey    string // the result field that holds the items: "tools"
	ListChanged string // the notification that says the list changed; "" for none
	Noun        string // what the items are called in prose: "templates"
	Discover    bool   // listed on connect when the capability is declared
}

// listMethods is the one table of paginated lists, in discovery order.
var listMethods = [...]ListMethod{
	{Capability: "tools", Method: MethodToolsList, ItemsKey: "tools", ListChanged: NotifyToolsListChanged, Noun: "tools", Discover: true},
	{Capability: "prompts", Method: MethodPromptsList, ItemsKey: "prompts", ListChanged: NotifyPromptsListChanged, Noun: "prompts", Discover: true},
	{Capability: "resources", Method: MethodResourcesList, ItemsKey: "resources", ListChanged: NotifyResourcesListChanged, Noun: "resources", Discover: true},
	{Capability: "resources", Method: MethodResourceTemplatesList, ItemsKey: "resourceTemplates", ListChanged: NotifyResourcesListChanged, Noun: "templates", Discover: true},
	{Capability: "tasks", Method: MethodTasksList, ItemsKey: "tasks", Noun: "tasks"},
}

// DiscoveryLists are the lists a client fetches on connect, in order, each
// when its capability is declared.
func DiscoveryLists() []ListMethod {
	var out []ListMethod
	for _, l := range listMethods {
		if l.Discover {
			out = append(out, l)
		}
	}
	return out
}

// LookupList describes a paginated list method; ok is false for any other
// method.
func LookupList(method string) (ListMethod, bool) {
	for _, l := range listMethods {
		if l.Method == method {
			return l, true
		}
	}
	return ListMethod{}, false
}

// ListsChangedBy are the lists a list_changed notification invalidates
// (notifications/resources/list_changed covers resources and templates).
func ListsChangedBy(notification string) []ListMethod {
	var out []ListMethod
	for _, l := range listMethods {
		if l.ListChanged != "" && l.ListChanged == notification {
			out = append(out, l)
		}
	}
	return out
}

// ListItemsKey is the result field that holds a list method's items, or ""
// when method is not a paginated list.
func ListItemsKey(method string) string {
	l, _ := LookupList(method)
	return l.ItemsKey
}

// IsToolError reports whether a tools/call result says isError: true (the
// tool ran and reported a failure, as opposed to a JSON-RPC error).
func IsToolError(result json.RawMessage) bool {
	var r struct {
		IsError bool `json:"isError"`
	}
	// isError alone is decoded, not the whole (possibly huge) result.
	small, ok := jsonview.Pick(result, "isError")
	return ok && json.Unmarshal(small, &r) == nil && r.IsError
}

// ParseProgress decodes the params of a notifications/progress. A string
// token is unquoted; a numeric token keeps its JSON spelling ("7").
func ParseProgress(params json.RawMessage) (Progress, error) {
	var n struct {
		Token    json.RawMessage `json:"progressToken"`
		Progress float64         `json:"progress"`
		Total    *float64        `json:"total"`
		Message  string          `json:"message"`
	}
	if err := json.Unmarshal(params, &n); err != nil {
		return Progress{}, fmt.Errorf("decoding %s params: %w", NotifyProgress, err)
	}
	tok := string(n.Token)
	if s, err := strconv.Unquote(tok); err == nil {
		tok = s
	}
	return Progress{Token: tok, Progress: n.Progress, Total: n.Total, Message: n.Message}, nil
}
