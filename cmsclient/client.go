// Package cmsclient is the client of the upstream WordPress REST API (wp/v2) and the home of the
// WordPress plugin (wordpress/: the loader calshim.php and its classes in calshim/) that exposes
// what calshim needs there. It returns errors and never logs.
package cmsclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-resty/resty/v2"
	"golang.org/x/sync/errgroup"
)

// ErrUnavailable wraps every failure to get an answer from the upstream (connection refused, timeout,
// 5xx): the caller turns it into a 503.
var ErrUnavailable = errors.New("cmsclient: upstream unavailable")

// Error is an error answer of WordPress: its code, message and status, as WordPress sent them.
type Error struct {
	Status  int
	Code    string
	Message string
	Data    json.RawMessage
	// AdditionalData is WordPress' additional_data member (further data of the same error), or nil.
	AdditionalData json.RawMessage
	// Created is what a create refused this way inserted nonetheless (the plugin's X-Calshim-Created:
	// wp/v2 inserts a post, then may refuse its meta or terms and keep it), nil for nothing.
	Created *Created
}

// Created names an object by its wp/v2 REST base and ID.
type Created struct {
	Base string
	ID   int
}

// createdHeader reads X-Calshim-Created ("/wp/v2/{base}/{id}"); nil when absent or malformed.
func createdHeader(h http.Header) *Created {
	base, id, ok := strings.Cut(strings.TrimPrefix(h.Get("X-Calshim-Created"), v2), "/")
	n, err := strconv.Atoi(id)
	if !ok || err != nil || n <= 0 || base == "" {
		return nil
	}
	return &Created{Base: base, ID: n}
}

func (e *Error) Error() string {
	return fmt.Sprintf("cmsclient: upstream %d %s: %s", e.Status, e.Code, e.Message)
}

// Client talks to one WordPress REST root.
type Client struct {
	http *resty.Client
	// Concurrency bounds parallel page fetches in ListAll.
	Concurrency int
	// WritePause is the pause before a write whose answer was lost is sent again, doubled before
	// each further attempt (sendKeyed).
	WritePause time.Duration

	callerOnce sync.Once
	caller     *resty.Client // requests made with a caller's credentials (write.go)
	metrics    *Metrics      // nil: not counted (metrics.go)
	// writeKeys: the plugin keys writes (its REST index says so, read by Site), so a write whose
	// answer is lost may be sent again.
	writeKeys atomic.Bool
}

// New returns a client for the REST root (e.g. http://127.0.0.1:8881/wp-json). user and appPassword are
// the service credential used for every request that does not carry the caller's own Authorization.
func New(root, user, appPassword string, timeout time.Duration) *Client {
	r := resty.New().SetBaseURL(strings.TrimSuffix(root, "/")).SetTimeout(timeout).
		SetHeader("Accept", "application/json").SetHeader("User-Agent", "calshim").
		// Basic auth over plain http is the normal sidecar set-up (loopback); resty would warn on every request.
		SetDisableWarn(true)
	if user != "" {
		r.SetBasicAuth(user, appPassword)
	}
	c := &Client{http: r, Concurrency: 4, WritePause: 250 * time.Millisecond}
	c.hook(r)
	return c
}

// SetTimeout changes the timeout of every later request (tests of late answers load with a longer one).
func (c *Client) SetTimeout(d time.Duration) {
	c.http.SetTimeout(d)
	c.callerHTTP().SetTimeout(d)
}

// SetUserAgent names calshim to WordPress on every service request (the plugin's admin screen lists
// each calshim that polls, by this name and version).
func (c *Client) SetUserAgent(ua string) { c.http.SetHeader("User-Agent", ua) }

// SetDefaultQuery adds a query parameter to every request of this client (e.g. lang=de for a
// multilingual CMS).
func (c *Client) SetDefaultQuery(key, value string) { c.http.SetQueryParam(key, value) }

// Response is one successful upstream answer.
type Response struct {
	Body       []byte
	Total      int // X-WP-Total, -1 when absent
	TotalPages int // X-WP-TotalPages, -1 when absent
	// Date is the upstream's clock when it answered (Date header); the local clock when absent.
	Date time.Time
}

// Get fetches path (relative to the REST root, e.g. "/wp/v2/tribe_events") with query.
func (c *Client) Get(ctx context.Context, path string, query url.Values) (*Response, error) {
	res, err := c.http.R().SetContext(ctx).SetQueryParamsFromValues(query).Get(path)
	if err != nil {
		return nil, fmt.Errorf("%w: GET %s: %v", ErrUnavailable, path, err)
	}
	if err := checkStatus(res); err != nil {
		return nil, err
	}
	date, err := http.ParseTime(res.Header().Get("Date"))
	if err != nil {
		date = time.Now()
	}
	return &Response{Body: res.Body(), Total: headerInt(res, "X-WP-Total"), TotalPages: headerInt(res, "X-WP-TotalPages"),
		Date: date.UTC()}, nil
}

func checkStatus(res *resty.Response) error {
	if res.StatusCode() < 300 {
		return nil
	}
	if res.StatusCode() >= 500 || res.StatusCode() == http.StatusTooManyRequests {
		return fmt.Errorf("%w: %s %s: status %d", ErrUnavailable, res.Request.Method, res.Request.URL, res.StatusCode())
	}
	e := &Error{Status: res.StatusCode()}
	var body struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(res.Body(), &body) == nil {
		e.Code, e.Message, e.Data = body.Code, body.Message, body.Data
	}
	return e
}

func headerInt(res *resty.Response, name string) int {
	n, err := strconv.Atoi(res.Header().Get(name))
	if err != nil {
		return -1
	}
	return n
}

// ListAll fetches every page of a wp/v2 collection (per_page=100, following X-WP-TotalPages; pages
// after the first in parallel, at most Concurrency at a time) and returns the items of all pages in
// page order, plus X-WP-Total.
func (c *Client) ListAll(ctx context.Context, path string, query url.Values) ([]json.RawMessage, int, error) {
	q := cloneValues(query)
	q.Set("per_page", "100")
	q.Set("page", "1")
	first, err := c.Get(ctx, path, q)
	if err != nil {
		return nil, 0, err
	}
	pages := make([][]json.RawMessage, max(first.TotalPages, 1))
	if err := json.Unmarshal(first.Body, &pages[0]); err != nil {
		return nil, 0, fmt.Errorf("cmsclient: GET %s: %w", path, err)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(c.Concurrency, 1))
	for i := 1; i < len(pages); i++ {
		g.Go(func() error {
			pq := cloneValues(q)
			pq.Set("page", strconv.Itoa(i+1))
			res, err := c.Get(gctx, path, pq)
			if err != nil {
				return err
			}
			return json.Unmarshal(res.Body, &pages[i])
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	var all []json.RawMessage
	for _, p := range pages {
		all = append(all, p...)
	}
	return all, first.Total, nil
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}
