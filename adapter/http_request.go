package adapter

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"

	"calshim/cmsclient"
	"calshim/mapping/php"
)

// prepare completes a request before its handler runs: it identifies the caller (auth.go) and, for
// writes, merges the body into the parameters (args_body.go). A read whose caller cannot be identified
// because the CMS is unreachable is served as anonymous, which never shows more than it should; a
// write then fails with 503.
func (s *Server) prepare(r *request) error {
	if err := s.identify(r); err != nil {
		return err
	}

	if r.method == http.MethodGet {
		return nil
	}

	if err := s.limits.admitWrite(r.gc); err != nil {
		return err
	}

	body, err := readBody(r.gc.Request, int64(s.opt.MaxBody),
		func(n int64) error { return r.mem.take(r.gc, n) })
	if err != nil {
		return err
	}

	r.params = mergeParams(r.params, body)
	return nil
}

// identify resolves the caller of r (auth.go). WordPress checks credentials before it dispatches,
// so rejected ones answer its error on every request, reads and OPTIONS included; a caller that
// cannot be identified because the CMS is unreachable reads as anonymous.
func (s *Server) identify(r *request) error {
	r.cms = s.catalog(r.lang).Client()
	v, err := s.resolveViewer(r)
	readOnly := r.method == http.MethodGet || r.method == http.MethodOptions
	if errors.Is(err, cmsclient.ErrUnavailable) && readOnly {
		v, err = nil, nil
	}

	if err != nil {
		return err
	}

	r.viewer = v
	if v != nil {
		r.gc.Set(viewerKey, v) // allow reads it; unset is anonymous (gin's Set allocates a map)
		// What a logged-in caller sees is theirs alone: no shared cache may keep it (WordPress sends
		// the same for logged-in users).
		r.gc.Header("Cache-Control", "no-cache, must-revalidate, max-age=0, private")
	}

	return nil
}

// noRoute is the answer to a request no route matches: WordPress' rest_no_route, unless the
// credentials are rejected, which it checks first.
func (s *Server) noRoute(gc *gin.Context, lang string) error {
	r := &request{
		gc:     gc,
		method: http.MethodGet,
		lang:   lang,
		params: parseForm(gc.Request.URL.RawQuery),
	}

	if err := s.identify(r); err != nil {
		return err
	}

	return errNoRoute
}

// methodOverride applies WordPress' method override (WP_REST_Server::serve_request): a `_method`
// query parameter, else an X-HTTP-Method-Override header, replaces the request method — clients
// behind proxies that only pass GET and POST send their PUT, PATCH and DELETE this way. Upper-cased
// as PHP does, ASCII alone ("poſt" is no POST).
func methodOverride(gc *gin.Context) {
	m := gc.Query("_method")
	if m == "" {
		m = gc.GetHeader("X-HTTP-Method-Override")
	}
	if m != "" {
		m = php.Strtoupper(m) // WP_REST_Request::set_method
		if m == http.MethodHead && gc.Request.Method != http.MethodHead {
			gc.Set(headOverride, true)
		}
		gc.Request.Method = m
	}
	gc.Next()
}

// headOverride marks a request whose method was overridden to HEAD: WordPress then serves no body
// (WP_REST_Server::serve_request returns before echoing it), and the connection, which carried a
// GET or a POST, expects the length of what is sent, none (send).
const headOverride = "calshim.head_override"

// This file is the request envelope: what a request may send (the sizes of the front WordPress
// usually sits behind, nginx's defaults) and the one memory budget every request's working set
// takes from, so that no request costs more than its size and no number of them costs more than
// the budget.

// The request line and each header line stop at nginx's large_client_header_buffers (4 × 8k): a
// request line past 8 KiB answers 414, a header line past 8 KiB or all of them past 32 KiB 431.
// (net/http stops at http.Server.MaxHeaderBytes before calshim sees the request: cmd/calshim sets it
// to MaxHeaderBytes.)
const (
	maxRequestLine = 8 << 10
	maxHeaderLine  = 8 << 10
	maxHeaders     = 32 << 10
	// MaxHeaderBytes is what net/http reads of a request's head (request line and headers) before
	// it answers 431 itself: the envelope's sum with room for the line endings.
	MaxHeaderBytes = maxRequestLine + maxHeaders
)

// envelope refuses a request whose line or headers are larger than nginx lets through, before
// anything parses them (gin's middleware, right after the access log so the refusal is logged).
func (s *Server) envelope(gc *gin.Context) {
	if err := checkEnvelope(gc.Request); err != nil {
		s.write(gc, nil, err)
		gc.Abort()
		return
	}
	gc.Next()
}

// checkEnvelope measures the request line and the header lines as they came on the wire ("Name:
// value"; net/http has joined nothing: a repeated header is one value per line).
func checkEnvelope(req *http.Request) error {
	if len(req.Method)+len(req.RequestURI)+len(req.Proto)+2 > maxRequestLine {
		return errURITooLong
	}

	total := 0
	for name, values := range req.Header {
		for _, v := range values {
			n := len(name) + 2 + len(v)
			if n > maxHeaderLine {
				return errHeadersTooLarge
			}
			total += n + 2
		}
	}

	if total > maxHeaders {
		return errHeadersTooLarge
	}

	return nil
}

// DefaultMemoryBudget is the requests' memory budget unless configured (limits.memory_budget): the
// worst body of DefaultMaxBody decodes within it (JSON of one-digit numbers: 57 MiB), and the
// answers being rendered share what is left.
const DefaultMemoryBudget = 64 << 20

// renderedAlone is the size below which a rendered answer takes nothing from the budget: the
// usual answers (a page of events is tens of kilobytes) need no accounting.
const renderedAlone = 64 << 10

// budgetWait is how long a request waits for the memory budget before it answers 503: long enough
// to ride out a burst, short enough that a flood is refused rather than queued.
const budgetWait = 250 * time.Millisecond

// memBudget is the process's memory budget for requests, in bytes: a body read into memory, its
// decoding, and an answer rendered take their estimated bytes from it before the work and give them
// back when the request ends, so that requests at once hold at most the budget, whoever sends them.
type memBudget struct {
	sem  *semaphore.Weighted
	size int64
	// refused counts the requests answered 503 for want of it.
	refused func()
}

func newMemBudget(size int64, refused func()) *memBudget {
	return &memBudget{sem: semaphore.NewWeighted(size), size: size, refused: refused}
}

// hold is what one request holds of the budget.
type hold struct {
	b *memBudget
	n int64
}

// errBudget is the answer when the budget is spent: the request is fine, the moment is not.
func errBudget(gc *gin.Context) error {
	gc.Header("Retry-After", "1")
	return busy("Too many large requests are being answered.", "1")
}

// take adds n bytes to what the request holds, waiting up to budgetWait; a request needing more
// than the whole budget is refused at once (it could never run).
func (h *hold) take(gc *gin.Context, n int64) error {
	if n <= 0 || h.b == nil {
		return nil
	}

	if n > h.b.size-h.n {
		h.b.refused()
		return errBudget(gc)
	}

	if !h.b.sem.TryAcquire(n) {
		ctx, cancel := context.WithTimeout(gc.Request.Context(), budgetWait)
		err := h.b.sem.Acquire(ctx, n)
		cancel()
		if err != nil {
			h.b.refused()
			return errBudget(gc)
		}
	}

	h.n += n
	return nil
}

// release gives back everything the request holds.
func (h *hold) release() {
	if h.n > 0 {
		h.b.sem.Release(h.n)
		h.n = 0
	}
}
