package demo

import (
	"bytes"
	"context"
	"fmt"
	goimage "image"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	readmeURI     = "demo://readme"
	logoURI       = "demo://logo.png"
	clockURI      = "demo://clock"
	notesTemplate = "demo://notes/{id}"
	notesPrefix   = "demo://notes/"
)

const readme = `# mcpscope demo server

This server exists to be debugged. Everything in it is fake and harmless.

- **Tools**: book_trip, add, echo, slow_count, log_burst, ask_user, ask_model, list_roots, fail, image, markdown.
- **Resources**: this readme, a PNG logo, a clock you can subscribe to, and notes at ` + "`demo://notes/{id}`" + `.
- **Prompts**: greet, review_code.
`

// notes are the resources behind the demo://notes/{id} template; their ids
// are what completion/complete offers for {id}.
var notes = map[string]string{
	"welcome":  "Welcome to the demo notes. Try completing {id} with a prefix.",
	"todo":     "- subscribe to demo://clock\n- call slow_count with a progress token\n- cancel it halfway",
	"ideas":    "A debugger that shows the handshake first.",
	"42":       "The answer.",
	"shopping": "milk, eggs, a faster MCP server",
}

func (d *demo) addResources(s *sdkmcp.Server) {
	s.AddResource(&sdkmcp.Resource{
		URI:         readmeURI,
		Name:        "readme",
		Title:       "Demo server README",
		Description: "What this server offers.",
		MIMEType:    "text/markdown",
		Size:        int64(len(readme)),
		Annotations: &sdkmcp.Annotations{Audience: []sdkmcp.Role{"user", "assistant"}, Priority: 0.8},
	}, func(context.Context, *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
		return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{
			{URI: readmeURI, MIMEType: "text/markdown", Text: readme},
		}}, nil
	})

	s.AddResource(&sdkmcp.Resource{
		URI:         logoURI,
		Name:        "logo.png",
		Title:       "Demo logo",
		Description: "A small PNG, drawn in code (a binary blob resource).",
		MIMEType:    "image/png",
	}, func(context.Context, *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
		data, err := logoPNG()
		if err != nil {
			return nil, fmt.Errorf("drawing the logo: %w", err)
		}
		return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{
			{URI: logoURI, MIMEType: "image/png", Blob: data},
		}}, nil
	})

	s.AddResource(&sdkmcp.Resource{
		URI:         clockURI,
		Name:        "clock",
		Title:       "Clock",
		Description: "The current time. Subscribe to it to receive notifications/resources/updated every few seconds.",
		MIMEType:    "text/plain",
	}, func(context.Context, *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
		return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{
			{URI: clockURI, MIMEType: "text/plain", Text: time.Now().UTC().Format(time.RFC3339)},
		}}, nil
	})

	s.AddResourceTemplate(&sdkmcp.ResourceTemplate{
		URITemplate: notesTemplate,
		Name:        "note",
		Title:       "Notes",
		Description: "A note by id. completion/complete suggests ids.",
		MIMEType:    "text/plain",
	}, func(_ context.Context, req *sdkmcp.ReadResourceRequest) (*sdkmcp.ReadResourceResult, error) {
		id := strings.TrimPrefix(req.Params.URI, notesPrefix)
		text, ok := notes[id]
		if !ok {
			return nil, sdkmcp.ResourceNotFoundError(req.Params.URI)
		}
		return &sdkmcp.ReadResourceResult{Contents: []*sdkmcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/plain", Text: text},
		}}, nil
	})
}

// --- prompts ---

var greetStyles = []string{"formal", "casual", "pirate"}

func (d *demo) addPrompts(s *sdkmcp.Server) {
	s.AddPrompt(&sdkmcp.Prompt{
		Name:        "greet",
		Title:       "Greet someone",
		Description: "Asks the model to greet a person, in a style (completion suggests formal, casual, pirate).",
		Arguments: []*sdkmcp.PromptArgument{
			{Name: "name", Title: "Name", Description: "Who to greet.", Required: true},
			{Name: "style", Title: "Style", Description: "formal, casual or pirate."},
		},
	}, greet)

	s.AddPrompt(&sdkmcp.Prompt{
		Name:        "review_code",
		Title:       "Review code",
		Description: "Asks the model to review a piece of code.",
		Arguments: []*sdkmcp.PromptArgument{
			{Name: "code", Title: "Code", Description: "The code to review.", Required: true},
		},
	}, reviewCode)
}

func greet(_ context.Context, req *sdkmcp.GetPromptRequest) (*sdkmcp.GetPromptResult, error) {
	name := req.Params.Arguments["name"]
	if name == "" {
		// The SDK does not enforce required prompt arguments; an invalid-params
		// error is what the spec asks for.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `greet: missing required argument "name"`}
	}
	style := req.Params.Arguments["style"]
	if style == "" {
		style = "casual"
	}
	return &sdkmcp.GetPromptResult{
		Description: fmt.Sprintf("Greet %s, %s style", name, style),
		Messages: []*sdkmcp.PromptMessage{
			{Role: "user", Content: &sdkmcp.TextContent{Text: fmt.Sprintf("Please greet %s in a %s style.", name, style)}},
		},
	}, nil
}

func reviewCode(_ context.Context, req *sdkmcp.GetPromptRequest) (*sdkmcp.GetPromptResult, error) {
	code := req.Params.Arguments["code"]
	if code == "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `review_code: missing required argument "code"`}
	}
	return &sdkmcp.GetPromptResult{
		Description: "Code review",
		Messages: []*sdkmcp.PromptMessage{
			{Role: "user", Content: &sdkmcp.TextContent{Text: "Please review this code for bugs and style:\n\n" + code}},
			{Role: "assistant", Content: &sdkmcp.TextContent{Text: "Sure. Let me read it carefully first."}},
		},
	}, nil
}

// --- completions ---

func (d *demo) complete(_ context.Context, req *sdkmcp.CompleteRequest) (*sdkmcp.CompleteResult, error) {
	var candidates []string
	ref, arg := req.Params.Ref, req.Params.Argument
	switch {
	case ref == nil:
	case ref.Type == "ref/prompt" && ref.Name == "greet" && arg.Name == "style":
		candidates = greetStyles
	case ref.Type == "ref/resource" && ref.URI == notesTemplate && arg.Name == "id":
		for id := range notes {
			candidates = append(candidates, id)
		}
		slices.Sort(candidates)
	}
	// Values must be an array, never null, even when nothing matches.
	values := []string{}
	for _, c := range candidates {
		if strings.HasPrefix(c, arg.Value) {
			values = append(values, c)
		}
	}
	return &sdkmcp.CompleteResult{Completion: sdkmcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}

// --- subscriptions ---

func (d *demo) subscribe(_ context.Context, req *sdkmcp.SubscribeRequest) error {
	uri := req.Params.URI
	if !knownURI(uri) {
		return sdkmcp.ResourceNotFoundError(uri)
	}
	if uri == clockURI {
		d.clock.add(req.Session)
	}
	return nil
}

func (d *demo) unsubscribe(_ context.Context, req *sdkmcp.UnsubscribeRequest) error {
	if req.Params.URI == clockURI {
		d.clock.remove(req.Session)
	}
	return nil
}

func knownURI(uri string) bool {
	switch uri {
	case readmeURI, logoURI, clockURI:
		return true
	}
	_, ok := notes[strings.TrimPrefix(uri, notesPrefix)]
	return ok && strings.HasPrefix(uri, notesPrefix)
}

// clock sends notifications/resources/updated for demo://clock while at least
// one session is subscribed. The SDK itself keeps track of who is subscribed
// and fans the notification out (legacy sessions directly, modern ones on
// their subscriptions/listen stream); clock only decides when to tick, so an
// idle server has no timer running.
type clock struct {
	server   *sdkmcp.Server
	interval time.Duration

	mu      sync.Mutex
	subs    map[*sdkmcp.ServerSession]bool
	watched map[*sdkmcp.ServerSession]bool
	stop    chan struct{} // non-nil while the ticker runs
}

func newClock(interval time.Duration) *clock {
	return &clock{
		interval: interval,
		subs:     make(map[*sdkmcp.ServerSession]bool),
		watched:  make(map[*sdkmcp.ServerSession]bool),
	}
}

func (c *clock) add(ss *sdkmcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.subs[ss] = true
	// A session that goes away never unsubscribes (the SDK drops its
	// subscriptions without calling the handler), so watch for its end.
	if !c.watched[ss] {
		c.watched[ss] = true
		go func() {
			_ = ss.Wait()
			c.mu.Lock()
			delete(c.watched, ss)
			c.mu.Unlock()
			c.remove(ss)
		}()
	}
	if c.stop == nil {
		c.stop = make(chan struct{})
		go c.tick(c.stop)
	}
}

func (c *clock) remove(ss *sdkmcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.subs, ss)
	if len(c.subs) == 0 && c.stop != nil {
		close(c.stop)
		c.stop = nil
	}
}

func (c *clock) tick(stop <-chan struct{}) {
	t := time.NewTicker(c.interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			// ResourceUpdated only fails for reasons the demo cannot act on
			// (a session closing mid-send); the next tick tries again.
			_ = c.server.ResourceUpdated(context.Background(), &sdkmcp.ResourceUpdatedNotificationParams{URI: clockURI})
		}
	}
}

// --- the logo ---

// logoPNG draws a 16x16 PNG: a teal frame around an amber "scope" dot. It is
// generated rather than embedded so the package has no binary files.
var logoPNG = sync.OnceValues(func() ([]byte, error) {
	const n = 16
	img := goimage.NewNRGBA(goimage.Rect(0, 0, n, n))
	teal := color.NRGBA{R: 0x1f, G: 0x9e, B: 0x9a, A: 0xff}
	amber := color.NRGBA{R: 0xff, G: 0xb0, B: 0x20, A: 0xff}
	dark := color.NRGBA{R: 0x14, G: 0x18, B: 0x20, A: 0xff}
	for y := range n {
		for x := range n {
			dx, dy := x*2-(n-1), y*2-(n-1)
			switch {
			case x == 0 || y == 0 || x == n-1 || y == n-1:
				img.SetNRGBA(x, y, teal)
			case dx*dx+dy*dy <= 40:
				img.SetNRGBA(x, y, amber)
			default:
				img.SetNRGBA(x, y, dark)
			}
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("encoding PNG: %w", err)
	}
	return buf.Bytes(), nil
})
