package demo

import "encoding/json"

// The tool schemas are written as raw JSON, not inferred from Go types, so that
// tools/list shows exactly these documents: the point is to give mcpscope's
// form engine every construct real servers use. The SDK still validates
// arguments against them (and applies top-level defaults) before a handler
// runs.

var bookTripSchema = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "description": "A trip: who travels, the legs, how it is paid.",
  "properties": {
    "traveller": {
      "type": "object",
      "description": "The person travelling.",
      "properties": {
        "name": {"type": "string", "minLength": 1, "description": "Full name as on the passport."},
        "email": {"type": "string", "format": "email"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "address": {"$ref": "#/$defs/address"}
      },
      "required": ["name"]
    },
    "legs": {
      "type": "array",
      "description": "The flights, in order.",
      "minItems": 1,
      "items": {
        "type": "object",
        "properties": {
          "from": {"type": "string", "minLength": 1, "description": "Departure city or IATA code."},
          "to": {"type": "string", "minLength": 1, "description": "Arrival city or IATA code."},
          "date": {"type": "string", "format": "date"},
          "class": {"type": "string", "enum": ["economy", "business", "first"], "default": "economy"}
        },
        "required": ["from", "to", "date"]
      }
    },
    "payment": {
      "description": "Pay by card or by invoice.",
      "oneOf": [
        {
          "title": "card",
          "type": "object",
          "properties": {"number": {"type": "string", "pattern": "^[0-9]{16}$", "description": "16 digits, no spaces."}},
          "required": ["number"],
          "additionalProperties": false
        },
        {
          "title": "invoice",
          "type": "object",
          "properties": {"company": {"type": "string", "minLength": 1}},
          "required": ["company"],
          "additionalProperties": false
        }
      ]
    },
    "notes": {"type": ["string", "null"], "description": "Anything else; null for nothing."},
    "seat": {"type": "string", "enum": ["aisle", "window", "middle"], "default": "aisle"}
  },
  "required": ["traveller", "legs", "payment"],
  "$defs": {
    "address": {
      "type": "object",
      "properties": {
        "street": {"type": "string"},
        "city": {"type": "string"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$", "description": "ISO 3166-1 alpha-2 code."}
      },
      "required": ["city", "country"]
    }
  }
}`)

var addSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "a": {"type": "number", "description": "First addend."},
    "b": {"type": "number", "description": "Second addend."}
  },
  "required": ["a", "b"],
  "additionalProperties": false
}`)

var addOutputSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"sum": {"type": "number"}},
  "required": ["sum"]
}`)

var echoSchema = json.RawMessage(`{
  "type": "object",
  "properties": {"message": {"type": "string", "description": "Text to send back."}},
  "required": ["message"]
}`)

var slowCountSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "steps": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 5, "description": "How many steps to count."},
    "delay_ms": {"type": "integer", "minimum": 0, "maximum": 60000, "default": 200, "description": "Pause before each step, in milliseconds."}
  }
}`)

var logBurstSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "count": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 5, "description": "How many log messages to send."},
    "level": {
      "type": "string",
      "enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"],
      "default": "info",
      "description": "RFC 5424 severity of every message."
    }
  }
}`)

var askUserSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "message": {"type": "string", "default": "Tell the demo server about yourself.", "description": "What the form says to the user."}
  }
}`)

// askUserForm is the elicitation form: flat, primitive properties only, as
// elicitation/create requires.
var askUserForm = json.RawMessage(`{
  "type": "object",
  "properties": {
    "name": {"type": "string", "title": "Your name", "minLength": 1},
    "colour": {"type": "string", "title": "Favourite colour", "enum": ["red", "green", "blue"]},
    "subscribe": {"type": "boolean", "title": "Subscribe to the newsletter", "default": true}
  },
  "required": ["name", "colour"]
}`)

var askModelSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "prompt": {"type": "string", "minLength": 1, "description": "What to ask the client's model."},
    "max_tokens": {"type": "integer", "minimum": 1, "maximum": 4096, "default": 200}
  },
  "required": ["prompt"]
}`)

var emptySchema = json.RawMessage(`{"type": "object", "properties": {}}`)

var failSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "message": {"type": "string", "default": "this tool always fails", "description": "The error text to return."}
  }
}`)
