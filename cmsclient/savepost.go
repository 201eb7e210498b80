package cmsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strconv"
	"strings"

	"calshim/mapping/php"
)

// PostSave is one wp/v2 save of a post made for a caller.
type PostSave struct {
	Type string // the post type, which is its REST base
	ID   int    // 0 creates
	// Body is the wp/v2 body: post fields, and "meta" as the calendar plugin stores it (strings,
	// lists of strings, nil to delete), sent in the types the CMS declares for its keys.
	Body map[string]any
	// Kept is stored meta sent again with an update that does not set it, when the CMS declares the
	// key a single string: the calendar plugin, when active, stores a declared _EventCost again
	// after every wp/v2 write of an event, from its display when the request has none. Not nil,
	// even empty, it has the declared types read for a save without meta too.
	Kept map[string]string
}

// SavedPost is WordPress' answer to a write of a post (a save, a trashing) or an attachment: its
// ID, and the answer itself (the object as it now is).
type SavedPost struct {
	ID     int
	Answer json.RawMessage
}

// SavePostAs creates or updates a post on behalf of a caller, its meta in the declared types
// (PostBody). A save refused for the type of a meta value is made once more with the types read
// afresh: the schema is cached (metaTypesTTL), and a plugin activated meanwhile (the calendar's own,
// whose block editor registers _EventShowMap boolean) may have changed them. What the refused create
// inserted (wp/v2 inserts the post before it refuses its meta) is deleted first.
func (c *Client) SavePostAs(ctx context.Context, creds Credentials, s PostSave) (*SavedPost, error) {
	res, err := c.savePost(ctx, creds, s)
	var ue *Error
	if !errors.As(err, &ue) || ue.Code != "rest_invalid_type" || !strings.HasPrefix(ue.Message, "meta.") {
		return res, err
	}
	metaTypesCache.Delete(metaTypesKey{c, s.Type})
	if ue.Created != nil {
		if c.DeletePostAs(ctx, creds, ue.Created.Base, ue.Created.ID) != nil {
			return nil, err // the caller's undo deletes it, or says it could not
		}
	}
	return c.savePost(ctx, creds, s)
}

func (c *Client) savePost(ctx context.Context, creds Credentials, s PostSave) (*SavedPost, error) {
	body, err := c.PostBody(ctx, s)
	if err != nil {
		return nil, err
	}
	return saved(c.Send(withOp(ctx, opSavePost), http.MethodPost, itemPath(s.Type, s.ID), nil, creds, body))
}

// PostBody is the body SavePostAs sends for s: its meta in the types the CMS declares for them
// (MetaTypes), with Kept's values, and without deletions on a create (wp/v2 refuses to delete a
// boolean key that has no valid stored value, and a new post has none). s.Body is left as it is.
func (c *Client) PostBody(ctx context.Context, s PostSave) (map[string]any, error) {
	meta, _ := s.Body["meta"].(map[string]any)
	if len(meta) == 0 && s.Kept == nil {
		return s.Body, nil
	}
	types, err := c.MetaTypes(ctx, s.Type)
	if err != nil {
		return nil, err
	}

	typed := maps.Clone(meta)
	if typed == nil {
		typed = map[string]any{}
	}
	if s.ID == 0 {
		maps.DeleteFunc(typed, func(_ string, v any) bool { return v == nil })
	}
	for key, v := range s.Kept {
		if _, given := typed[key]; !given && types[key] == "string" {
			typed[key] = v
		}
	}
	coerceMeta(typed, types)

	out := maps.Clone(s.Body)
	if len(typed) > 0 {
		out["meta"] = typed
	}
	return out, nil
}

// coerceMeta converts meta values, written as the calendar plugin stores them, into the JSON types
// the CMS declares for their keys: a boolean key takes true for "yes", "1", "true" and "on", else
// false (also for a deletion, which a boolean key whose stored value is not a boolean refuses); a
// numeric list takes numbers; a single-row key given a list takes its first row (no row: deleted).
// Keys the schema does not declare are left as they are.
func coerceMeta(meta map[string]any, types map[string]string) {
	for k, v := range meta {
		switch types[k] {
		case "boolean":
			meta[k] = metaTruthy(v)
		case "array:number", "array:integer":
			meta[k] = metaNumbers(v)
		case "string":
			meta[k] = metaFirst(v)
		}
	}
}

// metaTruthy is a flag as a boolean key takes it: a bool, or a string FILTER_VALIDATE_BOOLEAN
// accepts.
func metaTruthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return php.FilterBool(x)
	}

	return false
}

// metaNumbers turns ID rows into numbers; rows that are not numbers are dropped, as the CMS would
// refuse them.
func metaNumbers(v any) []int {
	out := []int{}
	rows, _ := v.([]string)
	if s, ok := v.(string); ok {
		rows = []string{s}
	}

	for _, r := range rows {
		if n, err := strconv.Atoi(strings.TrimSpace(r)); err == nil {
			out = append(out, n)
		}
	}

	return out
}

func metaFirst(v any) any {
	rows, ok := v.([]string)
	if !ok {
		return v
	}
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// saved reads the ID of what a write answered (a post, a term, an attachment) and keeps the answer.
func saved(res *Response, err error) (*SavedPost, error) {
	if err != nil {
		return nil, err
	}
	var w struct {
		ID int `json:"id"`
	}
	if err := json.Unmarshal(res.Body, &w); err != nil {
		return nil, fmt.Errorf("cmsclient: a write's answer: %w", err)
	}
	return &SavedPost{ID: w.ID, Answer: res.Body}, nil
}
