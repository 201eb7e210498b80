package cmsclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-resty/resty/v2"
)

// This file is the only place that spells wp/v2 paths: one typed method per upstream operation, so
// that the catalog and the adapter say what they want ("the posts of a type modified since", "create
// a term") and never build a URL. Reads use the service credential; the *As methods act on behalf of
// a caller, with the caller's own credentials.

const v2 = "/wp/v2/"

// PostQuery selects the posts a listing returns.
type PostQuery struct {
	Statuses      string    // comma-separated post statuses (wp/v2's status argument)
	ModifiedAfter time.Time // zero: any time
	Include       []int     // nil: every post
	IDsOnly       bool      // answer only the id field (a cheap listing for reconciliation)
}

func (q PostQuery) values() url.Values {
	v := url.Values{"status": {q.Statuses}, "orderby": {"id"}, "order": {"asc"}}
	if !q.ModifiedAfter.IsZero() {
		// The explicit "Z" matters: without an offset WordPress reads the value as site time.
		v.Set("modified_after", q.ModifiedAfter.UTC().Format("2006-01-02T15:04:05Z"))
	}
	if q.Include != nil {
		v.Set("include", joinInts(q.Include))
	}
	if q.IDsOnly {
		v.Set("_fields", "id")
	}
	return v
}

// Posts lists every post of a REST base (e.g. "tribe_events") that the query selects, all pages.
func (c *Client) Posts(ctx context.Context, base string, q PostQuery) ([]json.RawMessage, error) {
	items, _, err := c.ListAll(withOp(ctx, opPosts), v2+base, q.values())
	return items, err
}

// CountPosts answers how many posts of a REST base are in the given statuses, and the upstream's clock.
func (c *Client) CountPosts(ctx context.Context, base, statuses string) (int, time.Time, error) {
	q := url.Values{"status": {statuses}, "per_page": {"1"}, "_fields": {"id"}}
	res, err := c.Get(withOp(ctx, opCountPosts), v2+base, q)
	if err != nil {
		return 0, time.Time{}, err
	}
	return res.Total, res.Date, nil
}

// Post reads one post of a REST base in the view context: the post as wp/v2 answers it (the catalog
// decodes it with its types, as the listings' posts).
func (c *Client) Post(ctx context.Context, base string, id int) (json.RawMessage, error) {
	res, err := c.Get(withOp(ctx, opPost), v2+base+"/"+strconv.Itoa(id), url.Values{"context": {"view"}})
	if err != nil {
		return nil, err
	}
	return res.Body, nil
}

// Terms lists every term of a taxonomy REST base, empty ones included.
func (c *Client) Terms(ctx context.Context, base string) ([]json.RawMessage, error) {
	items, _, err := c.ListAll(withOp(ctx, opTerms), v2+base, url.Values{"hide_empty": {"false"}})
	return items, err
}

// Media lists the attachments with the given IDs (at most 100: one page).
func (c *Client) Media(ctx context.Context, ids []int) ([]json.RawMessage, error) {
	items, _, err := c.ListAll(withOp(ctx, opMedia), v2+"media", url.Values{"include": {joinInts(ids)}})
	return items, err
}

// MediaMimeType answers an attachment's MIME type.
func (c *Client) MediaMimeType(ctx context.Context, id int) (string, error) {
	res, err := c.Get(withOp(ctx, opMediaMime), v2+"media/"+strconv.Itoa(id), url.Values{"_fields": {"id,mime_type"}})
	if err != nil {
		return "", err
	}
	var m struct {
		MimeType string `json:"mime_type"`
	}
	err = json.Unmarshal(res.Body, &m)
	return m.MimeType, err
}

// MediaFile is an attachment's ID and file URL.
type MediaFile struct {
	ID        int    `json:"id"`
	SourceURL string `json:"source_url"`
}

// SearchMedia answers the first 100 attachments whose title or file name matches search.
func (c *Client) SearchMedia(ctx context.Context, search string) ([]MediaFile, error) {
	q := url.Values{"search": {search}, "_fields": {"id,source_url"}, "per_page": {"100"}}
	res, err := c.Get(withOp(ctx, opSearchMedia), v2+"media", q)
	if err != nil {
		return nil, err
	}
	var list []MediaFile
	err = json.Unmarshal(res.Body, &list)
	return list, err
}

// User is a user record as users/me answers it in the edit context.
type User struct {
	Username string   `json:"username"`
	Roles    []string `json:"roles"`
}

// ServiceUser answers the service credential's own user. WordPress answers 401 rest_not_logged_in
// when it took the request as anonymous: it ignored the credential.
func (c *Client) ServiceUser(ctx context.Context) (*User, error) {
	res, err := c.Get(withOp(ctx, opUsersMe), v2+"users/me", url.Values{"context": {"edit"}})
	if err != nil {
		return nil, err
	}
	var u User
	if err := json.Unmarshal(res.Body, &u); err != nil {
		return nil, fmt.Errorf("cmsclient: users/me: %w", err)
	}
	return &u, nil
}

// CountTerms answers how many terms a taxonomy REST base holds, empty ones included.
func (c *Client) CountTerms(ctx context.Context, base string) (int, error) {
	q := url.Values{"hide_empty": {"false"}, "per_page": {"1"}, "_fields": {"id"}}
	res, err := c.Get(withOp(ctx, opCountTerms), v2+base, q)
	if err != nil {
		return 0, err
	}
	return res.Total, nil
}

// Caller is a caller's own user record: its ID and capabilities.
type Caller struct {
	ID   int             `json:"id"`
	Caps map[string]bool `json:"capabilities"`
}

// Me answers the caller's own user record in the edit context (roles and capabilities included).
func (c *Client) Me(ctx context.Context, creds Credentials) (*Caller, error) {
	res, err := c.Send(withOp(ctx, opUsersMe), http.MethodGet, v2+"users/me", url.Values{"context": {"edit"}}, creds, nil)
	if err != nil {
		return nil, err
	}
	var me Caller
	if err := json.Unmarshal(res.Body, &me); err != nil {
		return nil, fmt.Errorf("cmsclient: users/me: %w", err)
	}
	return &me, nil
}

// TrashPostAs moves a post to the trash on behalf of a caller (wp/v2 DELETE without force, which
// answers the trashed post).
func (c *Client) TrashPostAs(ctx context.Context, creds Credentials, base string, id int) (*SavedPost, error) {
	return saved(c.Send(withOp(ctx, opTrashPost), http.MethodDelete, itemPath(base, id), nil, creds, nil))
}

// DeletePostAs deletes a post for good on behalf of a caller (wp/v2 DELETE with force; base "media"
// for an attachment).
func (c *Client) DeletePostAs(ctx context.Context, creds Credentials, base string, id int) error {
	force := url.Values{"force": {"true"}}
	_, err := c.Send(withOp(ctx, opDeletePost), http.MethodDelete, itemPath(base, id), force, creds, nil)
	return err
}

// SaveTermAs creates (id 0) or updates a term of a taxonomy REST base on behalf of a caller, and
// answers the term's ID.
func (c *Client) SaveTermAs(ctx context.Context, creds Credentials, base string, id int, body any) (int, error) {
	s, err := saved(c.Send(withOp(ctx, opSaveTerm), http.MethodPost, itemPath(base, id), nil, creds, body))
	if err != nil {
		return 0, err
	}
	return s.ID, nil
}

// DeleteTermAs deletes a term for good on behalf of a caller (terms have no trash).
func (c *Client) DeleteTermAs(ctx context.Context, creds Credentials, base string, id int) error {
	force := url.Values{"force": {"true"}}
	_, err := c.Send(withOp(ctx, opDeleteTerm), http.MethodDelete, itemPath(base, id), force, creds, nil)
	return err
}

// Upload creates an attachment (POST /wp/v2/media) from raw bytes, on behalf of the caller.
func (c *Client) Upload(
	ctx context.Context, creds Credentials, filename, contentType string, data []byte,
) (*SavedPost, error) {
	if creds.Empty() {
		return nil, ErrNoCredentials
	}
	return saved(c.sendKeyed(withOp(ctx, opUpload), http.MethodPost, v2+"media", func(ctx context.Context) *resty.Request {
		return creds.apply(c.callerHTTP().R().SetContext(ctx)).SetQueryParamsFromValues(c.http.QueryParam).
			SetHeader("Content-Type", contentType).
			SetHeader("Content-Disposition", "attachment; filename="+strconv.Quote(filename)).
			SetBody(data)
	}))
}

// TermURL is the wp/v2 address of a term, for a Location header.
func TermURL(restRoot, base string, id int) string {
	return strings.TrimRight(restRoot, "/") + itemPath(base, id)
}

func itemPath(base string, id int) string {
	if id == 0 {
		return v2 + base
	}
	return v2 + base + "/" + strconv.Itoa(id)
}

func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

// SearchPosts answers the first 100 posts of a REST base in the given statuses whose title, content
// or excerpt contain text (wp/v2's search).
func (c *Client) SearchPosts(ctx context.Context, base, statuses, text string) ([]json.RawMessage, error) {
	q := url.Values{"status": {statuses}, "search": {text}, "per_page": {"100"}}
	res, err := c.Get(withOp(ctx, opSearchPosts), v2+base, q)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	err = json.Unmarshal(res.Body, &items)
	return items, err
}
