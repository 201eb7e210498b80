package shadow

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"time"
)

// MaxBody bounds an answer read for a comparison: a larger one is not compared.
const MaxBody = 8 << 20

// Original asks the original's REST root (e.g. http://site/wp-json) in its namespace.
type Original struct {
	Root   string
	Client *http.Client
	// Asked, when set, is called before each request (the operator's count of what the original
	// takes).
	Asked func()
}

// Ask sends q to the original: Root + "/tribe/events/v1" + q.Path, with q.Query.
func (o *Original) Ask(ctx context.Context, q Query) *Answer {
	u := strings.TrimRight(o.Root, "/") + "/" + Namespace + q.Path
	if q.Query != "" {
		u += "?" + q.Query
	}
	if o.Asked != nil {
		o.Asked()
	}

	return get(ctx, o.Client, u)
}

// Site asks a calshim over HTTP at the target the client used (the replay).
type Site struct {
	Base   string // scheme://host:port
	Client *http.Client
}

// Ask sends q's target to the site.
func (s *Site) Ask(ctx context.Context, q Query) *Answer {
	return get(ctx, s.Client, strings.TrimRight(s.Base, "/")+q.Target)
}

// get sends an anonymous GET (no credentials, no cookies: the client is built without a jar) and
// reads the answer.
func get(ctx context.Context, client *http.Client, u string) *Answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return &Answer{Err: err.Error()}
	}

	resp, err := client.Do(req)
	if err != nil {
		return &Answer{Err: err.Error()}
	}
	defer func() { _ = resp.Body.Close() }()

	return read(resp.StatusCode, resp.Header, resp.Body)
}

// read takes an answer's status, compared headers and body (at most MaxBody bytes).
func read(status int, h http.Header, body io.Reader) *Answer {
	data, err := io.ReadAll(io.LimitReader(body, MaxBody+1))
	if err != nil {
		return &Answer{Status: status, Err: "reading the answer: " + err.Error()}
	}

	return sized(status, h, data)
}

// Sent is an answer calshim has just sent, kept for its comparison (Query.Sent): a copy, since the
// sender's buffer goes back to its pool.
func Sent(status int, h http.Header, body []byte) *Answer {
	a := sized(status, h, body)
	if a.Err == "" {
		a.Body = bytes.Clone(body)
	}

	return a
}

// sized is an answer's status, compared headers and body; a body over MaxBody is not compared.
func sized(status int, h http.Header, body []byte) *Answer {
	if len(body) > MaxBody {
		return &Answer{Status: status, Err: "reading the answer: answer larger than the comparison's limit"}
	}

	return &Answer{Status: status, Headers: Headers(h), Body: body}
}

// NewClient is an HTTP client for comparisons: no redirects followed (a 301 is an answer), no
// cookie jar.
func NewClient(timeout time.Duration, conns int) *http.Client {
	return &http.Client{
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Transport:     &http.Transport{MaxIdleConnsPerHost: conns, Proxy: http.ProxyFromEnvironment},
	}
}
