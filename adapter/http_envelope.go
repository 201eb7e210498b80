package adapter

import (
	"context"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"
)

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
