package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/mcp/lib/plural"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Keys of the inputRequests map. One request per tool, so the tool name is
// enough; a debugger shows the key, so it should read well.
const (
	keyElicit  = "ask_user"
	keySample  = "ask_model"
	keyRoots   = "list_roots"
	loggerName = "mcpscope-demo"
)

func (d *demo) addTools(s *sdkmcp.Server) {
	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "book_trip",
		Title:       "Book a trip",
		Description: "Books a (pretend) trip. Its input schema uses nested objects, arrays, oneOf, nullable types, formats, patterns, defaults and $ref, to exercise form builders.",
		InputSchema: bookTripSchema,
		Annotations: &sdkmcp.ToolAnnotations{Title: "Book a trip", OpenWorldHint: ptr(false)},
	}, bookTrip)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:         "add",
		Title:        "Add two numbers",
		Description:  "Adds a and b. Returns structuredContent {sum} matching its outputSchema, plus the JSON text fallback.",
		InputSchema:  addSchema,
		OutputSchema: addOutputSchema,
		Annotations:  &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, d.add)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the message unchanged.",
		InputSchema: echoSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, echo)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "slow_count",
		Title:       "Count slowly",
		Description: "Counts to steps, pausing delay_ms before each step. Sends notifications/progress per step when the request has a progress token, and stops when cancelled.",
		InputSchema: slowCountSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, slowCount)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:  "log_burst",
		Title: "Burst of log messages",
		Description: "Sends count notifications/message at the given level. Legacy era: nothing is sent until the client " +
			"calls logging/setLevel, and messages below that level are dropped. Modern era: the request's _meta must carry " +
			"io.modelcontextprotocol/logLevel.",
		InputSchema: logBurstSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, logBurst)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "ask_user",
		Title:       "Ask the user",
		Description: "Asks the user for their name, favourite colour and newsletter choice through elicitation, and returns the answer (accept/decline/cancel and content).",
		InputSchema: askUserSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, d.askUser)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "ask_model",
		Title:       "Ask the client's model",
		Description: "Asks the client's LLM through sampling (a single user message with prompt) and returns the reply.",
		InputSchema: askModelSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
	}, d.askModel)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "list_roots",
		Title:       "List the client's roots",
		Description: "Asks the client for its roots and returns them.",
		InputSchema: emptySchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)},
	}, d.listRoots)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "fail",
		Title:       "Always fail",
		Description: "Returns a tool result with isError: true (a tool-level error, not a protocol error).",
		InputSchema: failSchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, fail)

	sdkmcp.AddTool(s, &sdkmcp.Tool{
		Name:        "image",
		Title:       "Image and link",
		Description: "Returns an image content block (a small PNG drawn in code) and a resource_link to demo://logo.png.",
		InputSchema: emptySchema,
		Annotations: &sdkmcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, image)
	addMarkdownTool(s)
}

func ptr[T any](v T) *T { return &v }

func textResult(format string, args ...any) *sdkmcp.CallToolResult {
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func errorResult(format string, args ...any) *sdkmcp.CallToolResult {
	res := textResult(format, args...)
	res.IsError = true
	return res
}

// --- book_trip ---

type bookTripIn struct {
	Traveller struct {
		Name    string `json:"name"`
		Email   string `json:"email"`
		Age     *int   `json:"age"`
		Address *struct {
			Street  string `json:"street"`
			City    string `json:"city"`
			Country string `json:"country"`
		} `json:"address"`
	} `json:"traveller"`
	Legs []struct {
		From  string `json:"from"`
		To    string `json:"to"`
		Date  string `json:"date"`
		Class string `json:"class"`
	} `json:"legs"`
	Payment struct {
		Number  string `json:"number"`
		Company string `json:"company"`
	} `json:"payment"`
	Notes *string `json:"notes"`
	Seat  string  `json:"seat"`
}

func bookTrip(_ context.Context, _ *sdkmcp.CallToolRequest, in bookTripIn) (*sdkmcp.CallToolResult, any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Booked %s for %s", plural.S(len(in.Legs), "leg"), in.Traveller.Name)
	if in.Traveller.Email != "" {
		fmt.Fprintf(&b, " <%s>", in.Traveller.Email)
	}
	if in.Traveller.Age != nil {
		fmt.Fprintf(&b, ", age %d", *in.Traveller.Age)
	}
	if a := in.Traveller.Address; a != nil {
		fmt.Fprintf(&b, ", living in %s (%s)", a.City, a.Country)
	}
	b.WriteString(".\n")
	for i, leg := range in.Legs {
		// Nested defaults are not applied by the SDK (only top-level ones
		// are), so the schema's default is repeated here.
		class := leg.Class
		if class == "" {
			class = "economy"
		}
		fmt.Fprintf(&b, "  %d. %s -> %s on %s, %s\n", i+1, leg.From, leg.To, leg.Date, class)
	}
	seat := in.Seat
	if seat == "" {
		seat = "aisle"
	}
	fmt.Fprintf(&b, "Seat preference: %s.\n", seat)
	if in.Payment.Number != "" {
		fmt.Fprintf(&b, "Paid by card ending %s.\n", in.Payment.Number[len(in.Payment.Number)-4:])
	} else {
		fmt.Fprintf(&b, "Invoice to %s.\n", in.Payment.Company)
	}
	if in.Notes != nil {
		fmt.Fprintf(&b, "Notes: %s\n", *in.Notes)
	}
	return textResult("%s", strings.TrimRight(b.String(), "\n")), nil, nil
}

// --- add ---

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

// add leaves Content empty so the SDK fills in the JSON text fallback of the
// structured output, as the spec recommends.
func (d *demo) add(_ context.Context, _ *sdkmcp.CallToolRequest, in addIn) (*sdkmcp.CallToolResult, addOut, error) {
	return nil, addOut{Sum: in.A + in.B + d.addOffset}, nil
}

// --- echo ---

type echoIn struct {
	Message string `json:"message"`
}

func echo(_ context.Context, _ *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
	return textResult("%s", in.Message), nil, nil
}

// --- slow_count ---

type slowCountIn struct {
	Steps   int `json:"steps"`
	DelayMS int `json:"delay_ms"`
}

func slowCount(ctx context.Context, req *sdkmcp.CallToolRequest, in slowCountIn) (*sdkmcp.CallToolResult, any, error) {
	token := req.Params.GetProgressToken()
	delay := time.Duration(in.DelayMS) * time.Millisecond
	timer := time.NewTimer(delay)
	defer timer.Stop()
	for i := 1; i <= in.Steps; i++ {
		select {
		case <-ctx.Done():
			// The response to a cancelled request is dropped by the SDK; the
			// error still documents why the handler stopped.
			return nil, nil, fmt.Errorf("slow_count stopped at step %d of %d: %w", i, in.Steps, ctx.Err())
		case <-timer.C:
		}
		timer.Reset(delay)
		if token == nil {
			continue
		}
		if err := req.Session.NotifyProgress(ctx, &sdkmcp.ProgressNotificationParams{
			ProgressToken: token,
			Progress:      float64(i),
			Total:         float64(in.Steps),
			Message:       fmt.Sprintf("step %d of %d", i, in.Steps),
		}); err != nil {
			return nil, nil, fmt.Errorf("sending progress %d: %w", i, err)
		}
	}
	return textResult("counted %d", in.Steps), nil, nil
}

// --- log_burst ---

type logBurstIn struct {
	Count int    `json:"count"`
	Level string `json:"level"`
}

func logBurst(ctx context.Context, req *sdkmcp.CallToolRequest, in logBurstIn) (*sdkmcp.CallToolResult, any, error) {
	for i := 1; i <= in.Count; i++ {
		if err := req.Session.Log(ctx, &sdkmcp.LoggingMessageParams{
			Level:  sdkmcp.LoggingLevel(in.Level),
			Logger: loggerName,
			Data:   map[string]any{"message": fmt.Sprintf("log message %d of %d", i, in.Count), "seq": i},
		}); err != nil {
			return nil, nil, fmt.Errorf("sending log message %d: %w", i, err)
		}
	}
	return textResult("offered %s; the client receives those at or above its log level "+
		"(logging/setLevel, or _meta logLevel in the modern era) and none if it set no level", plural.S(in.Count, in.Level+" log message")), nil, nil
}

// --- ask_user (elicitation) ---

type askUserIn struct {
	Message string `json:"message"`
}

func (d *demo) askUser(_ context.Context, req *sdkmcp.CallToolRequest, in askUserIn) (*sdkmcp.CallToolResult, any, error) {
	if !clientDeclares(req, "elicitation") {
		return errorResult("the client did not declare the elicitation capability, so ask_user cannot ask"), nil, nil
	}
	answer, err := d.inputResponse(req, "ask_user", keyElicit)
	if err != nil {
		return errorResult("%v", err), nil, nil
	}
	if answer == nil {
		return d.inputRequired("ask_user", keyElicit, &sdkmcp.ElicitParams{
			Mode:            "form",
			Message:         in.Message,
			RequestedSchema: askUserForm,
		}), nil, nil
	}
	er, ok := answer.(*sdkmcp.ElicitResult)
	if !ok {
		return errorResult("inputResponses[%q] is a %T, want an elicitation result", keyElicit, answer), nil, nil
	}
	reply := map[string]any{"action": er.Action}
	if er.Content != nil {
		reply["content"] = er.Content
	}
	text, err := json.Marshal(reply)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding elicitation answer: %w", err)
	}
	res := textResult("%s", text)
	res.StructuredContent = reply
	return res, nil, nil
}

// --- ask_model (sampling) ---

type askModelIn struct {
	Prompt    string `json:"prompt"`
	MaxTokens int64  `json:"max_tokens"`
}

func (d *demo) askModel(_ context.Context, req *sdkmcp.CallToolRequest, in askModelIn) (*sdkmcp.CallToolResult, any, error) {
	if !clientDeclares(req, "sampling") {
		return errorResult("the client did not declare the sampling capability, so ask_model cannot ask"), nil, nil
	}
	answer, err := d.inputResponse(req, "ask_model", keySample)
	if err != nil {
		return errorResult("%v", err), nil, nil
	}
	if answer == nil {
		return d.inputRequired("ask_model", keySample, &sdkmcp.CreateMessageParams{
			Messages:     []*sdkmcp.SamplingMessage{{Role: "user", Content: &sdkmcp.TextContent{Text: in.Prompt}}},
			SystemPrompt: "You are answering a question from the mcpscope demo server. Be brief.",
			MaxTokens:    in.MaxTokens,
		}), nil, nil
	}
	// Legacy answers arrive as the SDK's fulfilment result, modern ones as
	// whatever the client sent; both SDK result types are accepted.
	var (
		model   string
		content []sdkmcp.Content
	)
	switch r := answer.(type) {
	case *sdkmcp.CreateMessageWithToolsResult:
		model, content = r.Model, r.Content
	case *sdkmcp.CreateMessageResult:
		model, content = r.Model, []sdkmcp.Content{r.Content}
	default:
		return errorResult("inputResponses[%q] is a %T, want a sampling result", keySample, answer), nil, nil
	}
	var parts []string
	for _, c := range content {
		if t, ok := c.(*sdkmcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	if len(parts) == 0 {
		return errorResult("model %s replied without text content", model), nil, nil
	}
	return textResult("%s", strings.Join(parts, "\n")), nil, nil
}

// --- list_roots (roots) ---

func (d *demo) listRoots(_ context.Context, req *sdkmcp.CallToolRequest, _ struct{}) (*sdkmcp.CallToolResult, any, error) {
	if !clientDeclares(req, "roots") {
		return errorResult("the client did not declare the roots capability, so list_roots cannot ask"), nil, nil
	}
	answer, err := d.inputResponse(req, "list_roots", keyRoots)
	if err != nil {
		return errorResult("%v", err), nil, nil
	}
	if answer == nil {
		return d.inputRequired("list_roots", keyRoots, &sdkmcp.ListRootsParams{}), nil, nil
	}
	lr, ok := answer.(*sdkmcp.ListRootsResult)
	if !ok {
		return errorResult("inputResponses[%q] is a %T, want a roots list", keyRoots, answer), nil, nil
	}
	if len(lr.Roots) == 0 {
		return textResult("the client has no roots"), nil, nil
	}
	var b strings.Builder
	b.WriteString(plural.S(len(lr.Roots), "root") + ":")
	for _, r := range lr.Roots {
		fmt.Fprintf(&b, "\n%s", r.URI)
		if r.Name != "" {
			fmt.Fprintf(&b, " (%s)", r.Name)
		}
	}
	return textResult("%s", b.String()), nil, nil
}

// --- fail ---

type failIn struct {
	Message string `json:"message"`
}

func fail(_ context.Context, _ *sdkmcp.CallToolRequest, in failIn) (*sdkmcp.CallToolResult, any, error) {
	return errorResult("%s", in.Message), nil, nil
}

// --- image ---

func image(_ context.Context, _ *sdkmcp.CallToolRequest, _ struct{}) (*sdkmcp.CallToolResult, any, error) {
	png, err := logoPNG()
	if err != nil {
		return nil, nil, fmt.Errorf("drawing the image: %w", err)
	}
	size := int64(len(png))
	return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{
		&sdkmcp.TextContent{Text: "The mcpscope demo logo, inline and as a link:"},
		&sdkmcp.ImageContent{Data: png, MIMEType: "image/png"},
		&sdkmcp.ResourceLink{
			URI:         logoURI,
			Name:        "logo.png",
			Title:       "mcpscope demo logo",
			Description: "The same image, as a resource.",
			MIMEType:    "image/png",
			Size:        &size,
		},
	}}, nil, nil
}

// --- MRTR helpers ---

// clientDeclares reports whether the client declared capability name
// ("elicitation", "sampling" or "roots"). A modern request carries its
// capabilities in its own _meta, which is authoritative for that request; a
// legacy one relies on what initialize declared.
func clientDeclares(req *sdkmcp.CallToolRequest, name string) bool {
	if caps, ok := req.Params.Meta[sdkmcp.MetaKeyClientCapabilities].(map[string]any); ok {
		_, has := caps[name]
		return has
	}
	p := req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil {
		return false
	}
	switch name {
	case "elicitation":
		return p.Capabilities.Elicitation != nil
	case "sampling":
		return p.Capabilities.Sampling != nil
	case "roots":
		// The SDK fills RootsV2 from the wire; Roots (a non-pointer struct)
		// cannot tell absence from an empty object.
		return p.Capabilities.RootsV2 != nil
	}
	return false
}

// inputRequired builds the first-round answer of an MRTR tool: one input
// request under key, and a signed requestState naming the tool, so the retry
// can prove it continues this server's conversation.
func (d *demo) inputRequired(tool, key string, ir sdkmcp.InputRequest) *sdkmcp.CallToolResult {
	return &sdkmcp.CallToolResult{
		InputRequests: sdkmcp.InputRequestMap{key: ir},
		RequestState:  d.signState(tool),
	}
}

// inputResponse returns the client's answer under key when req is an MRTR
// retry, or nil when it is a first call (or a retry that does not answer key,
// which is asked again). A retry whose requestState was not issued by this
// server for this tool is an error.
func (d *demo) inputResponse(req *sdkmcp.CallToolRequest, tool, key string) (sdkmcp.InputResponse, error) {
	answer, ok := req.Params.InputResponses[key]
	if !ok || answer == nil {
		return nil, nil
	}
	if err := d.verifyState(req.Params.RequestState, tool); err != nil {
		return nil, fmt.Errorf("retry of %s rejected: %w", tool, err)
	}
	return answer, nil
}

var errBadState = errors.New("requestState is missing, malformed, or was not issued by this server for this tool")
