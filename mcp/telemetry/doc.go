// Package telemetry sends what mcpscope sees to an OpenTelemetry collector:
// every request with its answer as a span named as the semantic
// conventions for MCP say ({mcp.method.name} {target}), under one span per
// connection; notifications and the doctor's findings as span events;
// the operation and session durations as histograms.
//
// A [Conversation] turns the ordered event stream of one connection (a
// live client's, a tap's, or a session file's rebuilt events) into spans
// with the frames' own times. An [Exporter] owns the OpenTelemetry SDK's
// providers and the OTLP HTTP exporters behind a bounded queue of its own:
// a collector that is down, refuses or hangs never slows the caller, costs
// at most the queue's memory, and is reported once with the number of
// spans it lost ([Exporter.Close]).
package telemetry
