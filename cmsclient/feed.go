package cmsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// This file holds the typed methods of the calshim plugin's own routes (calshim/v1): the change feed
// and the bulk load. Like wpv2.go, it is the only place that spells their paths.

const sync1 = "/calshim/v1/"

// FeedHead is the identity and position of the plugin's change log.
type FeedHead struct {
	Log   string `json:"log"`   // identity of the log: changes when the log is reset or recreated
	Site  string `json:"site"`  // the site's home URL
	Head  int64  `json:"head"`  // newest sequence
	Seq   int64  `json:"seq"`   // where the next poll continues from
	Floor int64  `json:"floor"` // highest pruned sequence: a since below it is expired
	NowMS int64  `json:"now_ms"`
	// Touch: the plugin logs what calshim's checksum comparison finds written around its hooks
	// (Client.Touch).
	Touch bool `json:"touch"`
}

// Changes is one answer of the change feed: what changed after the sequence asked for.
type Changes struct {
	FeedHead
	More     bool                  `json:"more"`      // further changes follow: poll again at once
	NewestMS int64                 `json:"newest_ms"` // when the newest change answered was made (unix ms), 0: none
	Posts    map[string]ChangedSet `json:"posts"`     // by post type
	Terms    map[string]ChangedSet `json:"terms"`     // by taxonomy REST base
	Media    ChangedSet            `json:"media"`
	Options  []string              `json:"options"` // names of the settings that changed
	Rows     []LogRow              `json:"rows"`    // the answer's rows of posts of the three types and of terms
	// IDs, when asked for (IDsList), lists every post ID by type, to notice writes made around
	// WordPress' APIs; Counts (IDsCount) is the cheap check first: per type, how many and their sum.
	IDs    map[string][]int   `json:"ids"`
	Counts map[string]IDCount `json:"counts"`
}

// LogRow is one row of the change log about a post of the three types, or (Term) about a category or
// tag, whose Type is then its taxonomy.
type LogRow struct {
	Seq     int64  `json:"seq"`
	ID      int    `json:"id"`
	Type    string `json:"type"`
	Deleted bool   `json:"deleted"`
	Term    bool   `json:"term"`
}

// ChangeRows is one page of the log's rows of posts (ChangeRows).
type ChangeRows struct {
	FeedHead
	More bool     `json:"more"` // rows follow after Seq: ask again from there
	Rows []LogRow `json:"rows"`
}

// IDCount is how many posts of a type WordPress has in the statuses calshim reads, and the sum of
// their IDs.
type IDCount struct {
	Count int   `json:"count"`
	Sum   int64 `json:"sum"`
}

// What a feed answer may add about every post: nothing, the counts, or the full ID lists.
const (
	IDsNone  = ""
	IDsCount = "count"
	IDsList  = "true"
)

// ChangedSet lists the IDs that changed and the items still readable among them, as wp/v2 renders
// them. An ID changed but absent from the items is gone for the reader (deleted, or out of the
// statuses or language it reads).
type ChangedSet struct {
	Changed []int             `json:"changed"`
	Items   []json.RawMessage `json:"items"`
	// Digests are the changed objects' checksums (Checksums), read before the items.
	Digests map[int]Digest `json:"digests"`
	// Logged is each changed object's checksum when its newest row in the answer was written, 0
	// when the plugin did not hold it then; absent for a row that kept none (an older plugin's). A
	// digest that differs from Digests' (0 when absent) says the object changed around WordPress'
	// hooks since that row: the item is not the state the row places.
	Logged map[int]Digest `json:"logged"`
}

// FeedHead reads the change log's identity and head.
func (c *Client) FeedHead(ctx context.Context) (*FeedHead, error) {
	res, err := c.Get(withOp(ctx, opFeed), sync1+"changes", nil)
	if err != nil {
		return nil, err
	}
	var h FeedHead
	if err := json.Unmarshal(res.Body, &h); err != nil {
		return nil, fmt.Errorf("cmsclient: change feed head: %w", err)
	}
	return &h, nil
}

// Changes reads the changes after since, with what ids asks about every post (IDsNone, IDsCount,
// IDsList). A since the log no longer holds (expired, or past a reset log's head) answers an *Error
// with status 410: the caller reloads everything.
func (c *Client) Changes(ctx context.Context, since int64, ids string) (*Changes, error) {
	q := url.Values{"since": {strconv.FormatInt(since, 10)}}
	if ids != IDsNone {
		q.Set("ids", ids)
	}
	res, err := c.Get(withOp(ctx, opFeed), sync1+"changes", q)
	if err != nil {
		return nil, err
	}
	var ch Changes
	if err := json.Unmarshal(res.Body, &ch); err != nil {
		return nil, fmt.Errorf("cmsclient: change feed: %w", err)
	}
	return &ch, nil
}

// ChangeRows reads the log's rows of posts after since up to until, one page: when More, the next
// page follows Seq. A since the log no longer holds answers an *Error with status 410.
func (c *Client) ChangeRows(ctx context.Context, since, until int64) (*ChangeRows, error) {
	q := url.Values{"since": {strconv.FormatInt(since, 10)}, "until": {strconv.FormatInt(until, 10)}}
	res, err := c.Get(ctx, sync1+"changes/rows", q)
	if err != nil {
		return nil, err
	}
	var out ChangeRows
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: change log rows: %w", err)
	}
	return &out, nil
}

// BulkIDs lists the IDs of every post of a type in the statuses the service credential reads.
func (c *Client) BulkIDs(ctx context.Context, postType string) ([]int, error) {
	res, err := c.Get(withOp(ctx, opBulk), sync1+"bulk", url.Values{"type": {postType}})
	if err != nil {
		return nil, err
	}
	var out struct {
		IDs []int `json:"ids"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: bulk %s ids: %w", postType, err)
	}
	return out.IDs, nil
}

// Bulk is one page of the bulk load: posts rendered like wp/v2 posts with the calshim field
// (DecodePost reads them), and their checksums, read before them.
type Bulk struct {
	Items   []json.RawMessage `json:"items"`
	Digests map[int]Digest    `json:"digests"`
}

// BulkPosts reads the posts of a type with from <= ID <= to.
func (c *Client) BulkPosts(ctx context.Context, postType string, from, to int) (*Bulk, error) {
	q := url.Values{"type": {postType}, "from": {strconv.Itoa(from)}, "to": {strconv.Itoa(to)}}
	res, err := c.Get(withOp(ctx, opBulk), sync1+"bulk", q)
	if err != nil {
		return nil, err
	}
	var out Bulk
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: bulk %s %d-%d: %w", postType, from, to, err)
	}
	return &out, nil
}

// PostExists asks the plugin whether any post (of any type and status) has the ID: its 404
// calshim_no_post is "no", any other failure an error.
func (c *Client) PostExists(ctx context.Context, id int) (bool, error) {
	_, err := c.Get(withOp(ctx, opPostExists), sync1+"posts/"+strconv.Itoa(id), nil)
	var e *Error
	if errors.As(err, &e) && e.Code == "calshim_no_post" {
		return false, nil
	}
	// Anything else (rest_no_route from an older plugin included) is an error, not an answer.
	return err == nil, err
}

// Digest is the plugin's checksum of an object calshim mirrors (a post with its meta and terms, a
// term, an option), or the XOR of those of a range: 64 bits, sent in hexadecimal.
type Digest uint64

// UnmarshalText reads the hexadecimal form.
func (d *Digest) UnmarshalText(b []byte) error {
	n, err := strconv.ParseUint(string(b), 16, 64)
	*d = Digest(n)
	return err
}

// What Checksums compares.
const (
	KindPosts = "posts" // the three post types in the statuses the service credential reads
	KindTerms = "terms" // the two taxonomies' terms
)

// RangeSums is the plugin's answer about an ID range [From, To] split in Parts sub-ranges: part i
// holds the IDs with (ID-From)*Parts/(To-From+1) = i; only non-empty parts are listed.
type RangeSums struct {
	From   int       `json:"from"`
	To     int       `json:"to"`
	Parts  int       `json:"parts"`
	Ranges []PartSum `json:"ranges"`
	Items  []ItemSum `json:"items"`
	More   bool      `json:"more"` // Items: objects after the last one listed remain in the range
}

// PartSum is how many objects a sub-range holds and the XOR of their digests.
type PartSum struct {
	Part   int    `json:"part"`
	Count  int    `json:"count"`
	Digest Digest `json:"digest"`
}

// ItemSum is one object's digest.
type ItemSum struct {
	ID     int    `json:"id"`
	Type   string `json:"type"` // post type or taxonomy
	Digest Digest `json:"digest"`
}

// Checksums splits the objects of kind with from <= ID <= to (to < 0: up to the highest ID, which
// the answer gives) into parts sub-ranges and answers each one's count and digest.
func (c *Client) Checksums(ctx context.Context, kind string, from, to, parts int) (*RangeSums, error) {
	q := url.Values{"kind": {kind}, "from": {strconv.Itoa(from)}, "parts": {strconv.Itoa(parts)}}
	if to >= 0 {
		q.Set("to", strconv.Itoa(to))
	}
	return c.checksums(ctx, q)
}

// ChecksumItems lists the objects of kind with from <= ID <= to with their digests, by ID: at most
// a few thousand (More says when others follow).
func (c *Client) ChecksumItems(ctx context.Context, kind string, from, to int) (*RangeSums, error) {
	q := url.Values{"kind": {kind}, "from": {strconv.Itoa(from)}, "to": {strconv.Itoa(to)}, "items": {"1"}}
	return c.checksums(ctx, q)
}

func (c *Client) checksums(ctx context.Context, q url.Values) (*RangeSums, error) {
	res, err := c.Get(ctx, sync1+"checksums", q)
	if err != nil {
		return nil, err
	}
	var out RangeSums
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: checksums: %w", err)
	}
	return &out, nil
}

// OptionSums answers the digest of each option calshim reads, by name.
func (c *Client) OptionSums(ctx context.Context) (map[string]Digest, error) {
	res, err := c.Get(ctx, sync1+"checksums", url.Values{"kind": {"options"}})
	if err != nil {
		return nil, err
	}
	var out struct {
		Options map[string]Digest `json:"options"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: option checksums: %w", err)
	}
	return out.Options, nil
}

// AttachmentsByID reads the attachments with the given IDs (at most 100), whatever their status, in
// the fields DecodeMedia reads: the plugin's answer to what TEC shows as a featured image, where
// wp/v2/media (Media) lists only the statuses inherit and private.
func (c *Client) AttachmentsByID(ctx context.Context, ids []int) ([]json.RawMessage, error) {
	res, err := c.Get(ctx, sync1+"media", url.Values{"include": {joinInts(ids)}})
	if err != nil {
		return nil, err
	}
	var out struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(res.Body, &out); err != nil {
		return nil, fmt.Errorf("cmsclient: attachments: %w", err)
	}
	return out.Items, nil
}

// Touch names objects whose change the checksum comparison found without a row in the change log
// (written around WordPress' hooks): post IDs by post type, term IDs by taxonomy, option names.
// Since is the sequence the catalog has read the log up to: an object with a row after it is left
// as it is.
type Touch struct {
	Since   int64            `json:"since"`
	Posts   map[string][]int `json:"posts,omitempty"`
	Terms   map[string][]int `json:"terms,omitempty"`
	Options []string         `json:"options,omitempty"`
}

// Touch asks the plugin to write a log row for each object t names that has none after t.Since, so
// that the change enters the log at one sequence for every reader; it answers the log's head after
// them and how many rows were written. Only a plugin whose FeedHead says Touch has the route.
func (c *Client) Touch(ctx context.Context, t Touch) (*FeedHead, int, error) {
	res, err := c.http.R().SetContext(withOp(ctx, opFeed)).SetBody(t).Post(sync1 + "changes/touch")
	if err != nil {
		return nil, 0, fmt.Errorf("%w: POST %schanges/touch: %v", ErrUnavailable, sync1, err)
	}
	if err := checkStatus(res); err != nil {
		return nil, 0, err
	}
	var out struct {
		FeedHead
		Touched int `json:"touched"`
	}
	if err := json.Unmarshal(res.Body(), &out); err != nil {
		return nil, 0, fmt.Errorf("cmsclient: touch: %w", err)
	}
	return &out.FeedHead, out.Touched, nil
}
