package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// DecodePage reads one page of a paginated list's result: its items and
// its nextCursor ("" on the last page). A page that cannot be read is an
// error that says why, never an empty page.
func DecodePage(method string, result json.RawMessage) (items []json.RawMessage, next string, err error) {
	key := ListItemsKey(method)
	if key == "" {
		return nil, "", fmt.Errorf("%s is not a paginated list method", method)
	}
	var body map[string]json.RawMessage
	if json.Unmarshal(result, &body) != nil || body == nil {
		return nil, "", errors.New("the result is not an object")
	}
	if raw, ok := body[key]; ok {
		if json.Unmarshal(raw, &items) != nil {
			return nil, "", fmt.Errorf("%q is not an array", key)
		}
	}
	if raw, ok := body["nextCursor"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &next) != nil {
			return nil, "", errors.New("nextCursor is not a string")
		}
	}
	return items, next, nil
}
