package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
)

// maxSubjectParams bounds how much of a message's params Subject decodes:
// the subject sits in the first members of small params, and a 20 MB
// sampling request or argument blob is not unmarshalled to name a row.
const maxSubjectParams = 64 << 10

// Subject names what a request or notification is about, for a one-line
// summary: the tool of a tools/call ("echo"), the resource of a
// resources/read ("file:///a.txt"), the prompt of a prompts/get, the
// reference of a completion/complete ("prompt greet · style"), the level of
// a logging/setLevel, the task of a tasks/get. It is "" for a frame of
// another kind, a method without a subject, or params it cannot read. The
// text is the server's or the user's, not sanitised: callers showing it on
// a terminal pass it through termsafe.
func Subject(f *Frame) string {
	if f == nil || (f.Kind != KindRequest && f.Kind != KindNotification) {
		return ""
	}
	switch f.Method {
	case MethodToolsCall, MethodPromptsGet, MethodResourcesRead, MethodResourcesSubscribe, MethodResourcesUnsubscribe,
		MethodCompletionComplete, MethodLoggingSetLevel, MethodTasksGet, MethodTasksResult, MethodTasksCancel,
		MethodElicitationCreate, NotifyResourcesUpdated, NotifyMessage, NotifyCancelled, NotifyProgress, NotifyTasksStatus:
	default:
		return ""
	}
	params, err := ParamsView(f.Raw)
	if err != nil || len(params) == 0 || len(params) > maxSubjectParams {
		return ""
	}
	var p struct {
		Name   string          `json:"name"`
		URI    string          `json:"uri"`
		Level  string          `json:"level"`
		Logger string          `json:"logger"`
		TaskID string          `json:"taskId"`
		Mode   string          `json:"mode"`
		URL    string          `json:"url"`
		Msg    string          `json:"message"`
		ReqID  json.RawMessage `json:"requestId"`
		Token  json.RawMessage `json:"progressToken"`
		// Progress and Total as sent (a number, or what the server put).
		Progress json.RawMessage `json:"progress"`
		Total    json.RawMessage `json:"total"`
		Ref      struct {
			Type string `json:"type"`
			Name string `json:"name"`
			URI  string `json:"uri"`
		} `json:"ref"`
		Argument struct {
			Name string `json:"name"`
		} `json:"argument"`
		Status string `json:"status"`
	}
	if json.Unmarshal(params, &p) != nil {
		return ""
	}
	switch f.Method {
	case MethodToolsCall, MethodPromptsGet:
		return p.Name
	case MethodResourcesRead, MethodResourcesSubscribe, MethodResourcesUnsubscribe, NotifyResourcesUpdated:
		return p.URI
	case MethodCompletionComplete:
		s := strings.TrimPrefix(p.Ref.Type, "ref/")
		if ref := p.Ref.Name + p.Ref.URI; ref != "" {
			s = strings.TrimSpace(s + " " + ref)
		}
		if p.Argument.Name != "" {
			s += " · " + p.Argument.Name
		}
		return s
	case MethodLoggingSetLevel:
		return p.Level
	case MethodTasksGet, MethodTasksResult, MethodTasksCancel:
		return p.TaskID
	case NotifyTasksStatus:
		return strings.TrimSpace(p.TaskID + " " + p.Status)
	case MethodElicitationCreate:
		if p.Mode == "url" && p.URL != "" {
			return p.URL
		}
		return firstLineOf(p.Msg)
	case NotifyMessage:
		if p.Logger != "" {
			return p.Level + " " + p.Logger
		}
		return p.Level
	case NotifyCancelled:
		if len(p.ReqID) > 0 {
			return "request " + string(p.ReqID)
		}
	case NotifyProgress:
		// The value is what a person follows ("3/10 indexing"); the token
		// only ties it to its request, which the detail and Activity show.
		switch {
		case len(p.Progress) > 0 && len(p.Total) > 0:
			return strings.TrimSpace(string(p.Progress) + "/" + string(p.Total) + " " + firstLineOf(p.Msg))
		case len(p.Progress) > 0:
			return strings.TrimSpace(string(p.Progress) + " " + firstLineOf(p.Msg))
		case len(p.Token) > 0:
			return "token " + string(p.Token)
		}
	}
	return ""
}

func firstLineOf(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// ResultIsError reports whether a response frame's result says
// "isError": true (a tools/call whose tool reported a failure). It scans
// the frame's bytes without decoding them: a 20 MB result costs one pass
// and no allocation.
func ResultIsError(f *Frame) bool {
	if f == nil || f.Kind != KindResponse {
		return false
	}
	data := bytes.TrimSpace(f.Raw)
	if len(data) == 0 || data[0] != '{' {
		return false
	}
	res := memberView(data, "result")
	if len(res) == 0 || res[0] != '{' {
		return false
	}
	return string(memberView(res, "isError")) == "true"
}

// memberView is the value of the member name of the JSON object obj (a
// view; nil when absent). obj is a valid JSON object: a classified
// frame's, or a value inside one. Keys are compared as json.Unmarshal
// does, without regard to case.
func memberView(obj []byte, name string) []byte {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipString(obj, i)
		key := obj[i+1 : max(kEnd-1, i+1)]
		i = skipSpace(obj, kEnd) + 1 // the colon
		i = skipSpace(obj, i)
		if i >= len(obj) {
			return nil
		}
		vEnd := skipValue(obj, i)
		if bytes.EqualFold(key, []byte(name)) {
			return obj[i:vEnd]
		}
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
	return nil
}
